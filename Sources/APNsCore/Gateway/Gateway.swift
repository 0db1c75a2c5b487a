import Foundation

/// The application behind every APNs listener: validates a request, records it, and returns
/// the APNs response. Thread-safe; called from every worker thread at once.
///
/// No response leaves before its record is stored: `handle` appends, then returns.
public final class Gateway: Sendable {
    /// Where records go.
    public let store: DeliveryStore
    /// Known devices.
    public let registry: DeviceRegistry
    /// The validation knobs.
    public let options: ValidationOptions
    private let clock: @Sendable () -> Double
    private let makeID: @Sendable (_ uppercase: Bool) -> String

    /// - Parameters:
    ///   - clock: now, in seconds since the Unix epoch (tests inject a fixed one).
    ///   - makeID: a new UUID string, upper- or lowercase, for generated `apns-id` and
    ///     `apns-unique-id` values.
    public init(store: DeliveryStore, registry: DeviceRegistry, options: ValidationOptions,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                makeID: (@Sendable (_ uppercase: Bool) -> String)? = nil) {
        self.store = store
        self.registry = registry
        self.options = options
        self.clock = clock
        let generator = UUIDGenerator()
        self.makeID = makeID ?? { generator.next(uppercase: $0) }
    }

    /// Decides, records and answers one request.
    /// - Parameters:
    ///   - defaultTopic: the topic when `apns-topic` is absent (a single-topic client certificate).
    ///   - authorize: the credential check, given what validation parsed; nil when the listener
    ///     checks no credentials. Its reason ranks after method and path (405, 404,
    ///     MissingDeviceToken) and before every other check: APNs answers MissingProviderToken
    ///     before looking at the device token (spec section 9, order of checks).
    /// - Returns: the response to send, and the stored record's sequence number.
    public func handle(_ request: PushRequest, connection: ConnectionInfo, streamID: Int32, defaultTopic: String? = nil,
                       authorize: ((Verdict) -> AuthorizationResult)? = nil) -> (PushResponse, UInt64) {
        let now = clock()
        let registry = self.registry
        var verdict = RequestValidator.validate(request, environment: connection.environment, options: options,
                                                nowMilliseconds: Int64(now * 1000), defaultTopic: defaultTopic,
                                                lookup: { registry.lookup($0) })
        var identity: CredentialIdentity?
        if let authorize {
            let result = authorize(verdict)
            identity = result.identity
            if let reason = result.reason, !Gateway.outranksAuthentication(verdict.reason) {
                verdict.reason = reason
                verdict.timestamp = nil
            }
        }
        // Apple generates uppercase apns-id values; apns-unique-id is lowercase (spec section 9).
        let apnsID = verdict.apnsID ?? makeID(true)
        let uniqueID = connection.environment == .sandbox ? makeID(false) : nil
        var headers = request.headers
        for index in headers.indices where headers[index].name == "authorization" {
            headers[index].value = AuthorizationRedaction.redact(headers[index].value)
        }
        let record = DeliveryRecord(receivedAt: now, environment: connection.environment, listener: connection.listener,
                                    connectionID: connection.id, streamID: streamID, method: request.method,
                                    path: request.path, verdict: verdict, apnsID: apnsID, uniqueID: uniqueID,
                                    headers: headers, payload: request.body, status: verdict.status,
                                    reason: verdict.reason, identity: identity)
        let seq = store.append(record)
        let response = ResponseBuilder.response(reason: verdict.reason, timestamp: verdict.timestamp,
                                                apnsID: apnsID, uniqueID: uniqueID)
        return (response, seq)
    }

    /// Method and path problems are answered before credentials are looked at.
    static func outranksAuthentication(_ reason: Reason?) -> Bool {
        reason == .methodNotAllowed || reason == .badPath || reason == .missingDeviceToken
    }
}
