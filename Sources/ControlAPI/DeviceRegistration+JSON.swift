import APNsCore
import JSONSupport

extension DeviceRegistration {
    /// The registration as the control API shows it: `{"token", "topic" (or null), "environment",
    /// "unregisteredAt" (milliseconds since the epoch, or null), "expired"}`.
    public func jsonValue() -> ControlJSON {
        [
            "environment": .string(environment.rawValue),
            "expired": .bool(expired),
            "token": .string(token),
            "topic": .string(topic),
            "unregisteredAt": .int(unregisteredAt),
        ]
    }

    /// The fields a `PUT /v1/devices/{token}` body may carry.
    static let jsonFields = ["token", "topic", "environment", "unregisteredAt", "expired"]

    /// Parses a `PUT /v1/devices/{token}` body for `token` (already validated and lowercased):
    /// a JSON object with `environment` (`sandbox` or `production`, required), `topic` (non-empty
    /// string or null), `unregisteredAt` (integer milliseconds since the epoch, an ISO 8601 string,
    /// or null), `expired` (boolean, default false) and optionally `token` (must equal the path's).
    /// `expired: true` without `unregisteredAt` records `nowMilliseconds` as the moment of
    /// marking. Throws a 400 naming the field for malformed JSON, unknown fields and wrong types
    /// or values.
    static func fromControlBody(_ body: [UInt8], token: String, nowMilliseconds: Int64)
        throws(ControlError) -> DeviceRegistration
    {
        let parsed: ControlJSON
        do {
            parsed = try ControlJSON(decoding: body)
        } catch DecodingError.dataCorrupted(let context) {
            // Foundation's reason; its decoder gives no position.
            throw .badRequest(
                "request body is not valid JSON: \(context.debugDescription) Expected an object like "
                    + #"{"environment":"sandbox","topic":"com.example.app"}."#)
        } catch {
            throw .badRequest("request body is not valid JSON: \(error)")
        }
        // Of a repeated key Foundation keeps the first value.
        guard case .object(let object) = parsed else { throw .badRequest("body must be a JSON object") }
        let unknown = object.keys.filter { !jsonFields.contains($0) }.sorted()
        if !unknown.isEmpty {
            throw .badRequest(
                "unknown field(s) in body: \(unknown.joined(separator: ", ")) "
                    + "(allowed: \(jsonFields.joined(separator: ", ")))")
        }
        switch object["token"] {
        case nil, .null?: break
        case .string(let sent)? where sent.lowercased() == token: break
        default: throw .badRequest("token in body must equal the token in the path")
        }
        let environment: APNsEnvironment
        switch object["environment"] {
        case nil, .null?: throw .badRequest("environment is required: sandbox or production")
        case .string(let text)? where APNsEnvironment(rawValue: text.lowercased()) != nil:
            environment = APNsEnvironment(rawValue: text.lowercased())!
        default: throw .badRequest("environment must be sandbox or production")
        }
        var topic: String?
        switch object["topic"] {
        case nil, .null?: break
        case .string(let text)? where !text.isEmpty: topic = text
        default: throw .badRequest("topic must be a non-empty string or null")
        }
        var unregisteredAt: Int64?
        if let value = object["unregisteredAt"], value != .null {
            unregisteredAt = try milliseconds(value)
        }
        var expired = false
        switch object["expired"] {
        case nil, .null?: break
        case .bool(let flag)?: expired = flag
        default: throw .badRequest("expired must be true or false")
        }
        if expired && unregisteredAt == nil { unregisteredAt = nowMilliseconds }
        return DeviceRegistration(
            token: token, topic: topic, environment: environment,
            unregisteredAt: unregisteredAt, expired: expired)
    }

    private static func milliseconds(_ value: ControlJSON) throws(ControlError) -> Int64 {
        switch value {
        // Foundation reads integral numbers such as 1.7e12 or 1700000000000.0 as integers too.
        case .int(let ms) where ms >= 0: return ms
        case .string(let text): if let ms = ISO8601Millis.parse(text) { return ms }
        default: break
        }
        throw .badRequest(
            "unregisteredAt must be a non-negative integer (milliseconds since the epoch) "
                + "or an ISO 8601 string like 2026-11-30T08:49:03.123Z")
    }
}
