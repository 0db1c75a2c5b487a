import Foundation
import JSONInput

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

    /// Parses `body` (`StrictJSONDecoder`; keys other than `reason` and `timestamp` are ignored,
    /// as a later APNs may add some); nil when it is not a JSON object with a string `reason`.
    /// `timestamp` may be a number (a fraction is cut off) or a string of digits.
    public init?(body: [UInt8]) {
        guard
            let wire = try? StrictJSONDecoder(options: .init(unknownKeys: .ignore)).decode(Wire.self, from: body)
        else { return nil }
        reason = wire.reason
        switch wire.timestamp {
        case .int(let number)?: timestamp = number
        case .uint(let number)?: timestamp = Int64(exactly: number)
        case .double(let number)? where number.isFinite: timestamp = Int64(exactly: number.rounded(.towardZero))
        case .string(let text)?: timestamp = Int64(text)
        default: timestamp = nil
        }
    }

    /// The body as sent.
    private struct Wire: Decodable {
        let reason: String
        let timestamp: JSONNode?
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
