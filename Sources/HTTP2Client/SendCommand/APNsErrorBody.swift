import Foundation

/// The JSON body of an APNs error response: `{"reason":"BadDeviceToken"}`, with `timestamp`
/// (milliseconds since 1970) for `Unregistered`.
public struct APNsErrorBody: Sendable, Equatable {
    /// The reason, e.g. `BadDeviceToken`.
    public var reason: String
    /// Milliseconds since 1970-01-01 UTC when the device stopped being valid, if given.
    public var timestamp: Int64?

    /// Creates a body.
    public init(reason: String, timestamp: Int64? = nil) {
        self.reason = reason
        self.timestamp = timestamp
    }

    /// Parses `body`; nil when it is not a JSON object with a string `reason`.
    public init?(body: [UInt8]) {
        guard !body.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let reason = object["reason"] as? String
        else { return nil }
        self.reason = reason
        if let number = object["timestamp"] as? NSNumber {
            timestamp = number.int64Value
        } else if let text = object["timestamp"] as? String {
            timestamp = Int64(text)
        }
    }

    /// `timestamp` as ISO 8601 UTC with milliseconds, e.g. `2023-11-14T22:13:20.000Z`.
    public var timestampISO8601: String? {
        guard let timestamp else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(timestamp) / 1000))
    }
}
