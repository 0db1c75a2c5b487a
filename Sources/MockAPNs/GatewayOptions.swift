import APNsCore
import Configuration
import Faults

/// What an isolated gateway is made with (`MockAPNsServer.createGateway(_:)`, and
/// `POST /v1/gateways` through `GatewayBody`; docs/testing.md "Isolated gateways"). Every
/// setting is optional; nil takes the server's default.
public struct GatewayOptions: Sendable, Equatable {
    /// The listener's name in records and events; nil: the gateway's id (`g1`, …).
    public var name: String?
    /// The APNs port; 0 picks a free one.
    public var port: Int
    /// The environment served; nil: the server's first listener's.
    public var environment: APNsEnvironment?
    /// How provider authentication is checked; nil: the server's first listener's.
    public var auth: AuthModeSetting?
    /// Seconds untouched (no push, no control request under its base) after which it is deleted,
    /// 0 to 86,400, 0 = never; nil: `GatewayOptions.defaultTTLSeconds`. Enforced by the control
    /// API's thread: a server without a control API never expires gateways.
    public var ttlSeconds: Int?
    /// Records kept, 1 to the default gateway's `maxRecords`; nil: `Configuration.gatewayMaxRecords`.
    public var maxRecords: Int?
    /// Devices registered from the start.
    public var devices: [DeviceRegistration]
    /// Fault rules in force from the start, in evaluation order.
    public var faults: [FaultRule]

    /// The idle TTL when none is given, seconds (10 minutes).
    public static let defaultTTLSeconds = 600

    /// Options with every default unless given.
    public init(
        name: String? = nil, port: Int = 0, environment: APNsEnvironment? = nil, auth: AuthModeSetting? = nil,
        ttlSeconds: Int? = nil, maxRecords: Int? = nil, devices: [DeviceRegistration] = [], faults: [FaultRule] = []
    ) {
        self.name = name
        self.port = port
        self.environment = environment
        self.auth = auth
        self.ttlSeconds = ttlSeconds
        self.maxRecords = maxRecords
        self.devices = devices
        self.faults = faults
    }
}
