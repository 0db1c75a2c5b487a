import APNsCore
import JSONInput
import JSONSupport

/// The body of `POST /v1/gateways` (docs/testing.md "Isolated gateways"): nothing, or a JSON
/// object whose keys are all optional: `name` (1 to 64 letters, digits, `-`, `_`, `.`), `port`
/// (0 to 65535, 0 = any free one), `environment` (`sandbox` or `production`), `auth` (`none`,
/// `permissive` or `strict`), `ttlSeconds` (0 to 86,400; 0 = never expires), `maxRecords` (at
/// least 1; its upper bound is the server's), `devices` (an array of `PUT /v1/devices/{token}`
/// bodies, each with its `token`) and `faults` (a `POST /v1/faults` body). An unknown key is a
/// 400 naming it, as in every body; `devices` and `faults` are read by their own endpoints when
/// the gateway is made, so their errors are those endpoints'.
public struct GatewayBody: Decodable, Equatable, Sendable {
    /// The listener's name, or nil for the gateway's id.
    public var name: String?
    /// The APNs port; 0 picks a free one.
    public var port: Int = 0
    /// The environment served, or nil for the server's first listener's.
    public var environment: APNsEnvironment?
    /// `none`, `permissive` or `strict`, or nil for the server's first listener's.
    public var auth: String?
    /// Seconds untouched after which the gateway is deleted (0: never), or nil for the default.
    public var ttlSeconds: Int?
    /// Records kept, or nil for the server's per-gateway default.
    public var maxRecords: Int?
    /// The devices to register, each a JSON object with `token`, as `PUT /v1/devices/{token}` takes it.
    public var devices: [JSONNode] = []
    /// The fault rules, as `POST /v1/faults` takes them; nil for none.
    public var faults: JSONNode?

    /// The provider-authentication modes a gateway may check with.
    public static let authModes = ["none", "permissive", "strict"]
    /// The accepted `ttlSeconds`, seconds (a day at most).
    public static let ttlRange = 0...86_400
    /// The accepted `port`s.
    static let portRange = 0...65_535
    /// The body's shape, for messages.
    static let form = #"a JSON object like {"name": "suite-a", "ttlSeconds": 600}, every key optional"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, port, environment, auth, ttlSeconds, maxRecords, devices, faults
    }

    /// A body with every default.
    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let name = try container.decodeIfPresent(String.self, forKey: .name) {
            guard Self.isValidName(name) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.name],
                    "expected 1 to 64 letters, digits, '-', '_' or '.', got \(InputError.quoted(name))")
            }
            self.name = name
        }
        port = try container.decodeIfPresent(Int.self, forKey: .port, in: Self.portRange) ?? 0
        if let text = try container.decodeIfPresent(String.self, forKey: .environment) {
            guard let environment = APNsEnvironment(rawValue: text.lowercased()) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.environment],
                    #"expected "sandbox" or "production", got "# + InputError.quoted(text)
                        + ClosestMatch.hint(text, among: ["sandbox", "production"]))
            }
            self.environment = environment
        }
        if let text = try container.decodeIfPresent(String.self, forKey: .auth) {
            guard Self.authModes.contains(text) else {
                throw InputError(
                    at: container.codingPath + [CodingKeys.auth],
                    "expected one of " + Self.authModes.joined(separator: ", ") + ", got " + InputError.quoted(text)
                        + ClosestMatch.hint(text, among: Self.authModes))
            }
            auth = text
        }
        ttlSeconds = try container.decodeIfPresent(Int.self, forKey: .ttlSeconds, in: Self.ttlRange)
        maxRecords = try container.decodeIfPresent(Int.self, forKey: .maxRecords, in: 1...Int(Int32.max))
        if let devices = try container.decodeIfPresent([JSONNode].self, forKey: .devices) {
            for (index, device) in devices.enumerated() {
                guard case .object(let members) = device, case .string? = members["token"] else {
                    throw InputError(
                        at: container.codingPath + [CodingKeys.devices, IndexKey(index)],
                        #"expected a device object with its "token", like {"token":"…","environment":"sandbox"}"#)
                }
            }
            self.devices = devices
        }
        faults = try container.decodeIfPresent(JSONNode.self, forKey: .faults)
        if faults == .null { faults = nil }
    }

    /// The body read from `bytes`: every default when empty, else a 400 naming the field.
    public static func read(_ bytes: [UInt8]) throws(ControlError) -> GatewayBody {
        guard bytes.contains(where: { !(" \t\r\n" as String).utf8.contains($0) }) else { return GatewayBody() }
        return try ControlBody.decode(GatewayBody.self, from: bytes, form: form)
    }

    /// True for 1 to 64 ASCII letters, digits, `-`, `_` and `.`.
    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }

    /// An array index in a coding path.
    private struct IndexKey: CodingKey {
        var intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(_ index: Int) { intValue = index }
        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.intValue = intValue }
    }
}
