import JSONInput
import JSONSupport

/// An HTTP/2 error code (RFC 9113 section 7) for RST_STREAM and GOAWAY faults. (Not named
/// HTTP2ErrorCode: HTTP2Client has one, and a wire-level test may import both modules.)
///
/// JSON: the name (`"REFUSED_STREAM"`, any case) or the number (`7`). Codes without a name
/// (up to 2^32-1) are allowed, since a sender must treat unknown codes as INTERNAL_ERROR;
/// they are written back as numbers, named codes as names.
public struct FaultErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let noError = FaultErrorCode(rawValue: 0)
    public static let protocolError = FaultErrorCode(rawValue: 1)
    public static let internalError = FaultErrorCode(rawValue: 2)
    public static let flowControlError = FaultErrorCode(rawValue: 3)
    public static let settingsTimeout = FaultErrorCode(rawValue: 4)
    public static let streamClosed = FaultErrorCode(rawValue: 5)
    public static let frameSizeError = FaultErrorCode(rawValue: 6)
    public static let refusedStream = FaultErrorCode(rawValue: 7)
    public static let cancel = FaultErrorCode(rawValue: 8)
    public static let compressionError = FaultErrorCode(rawValue: 9)
    public static let connectError = FaultErrorCode(rawValue: 10)
    public static let enhanceYourCalm = FaultErrorCode(rawValue: 11)
    public static let inadequateSecurity = FaultErrorCode(rawValue: 12)
    public static let http11Required = FaultErrorCode(rawValue: 13)

    /// The RFC 9113 names, indexed by code.
    public static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
        "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
        "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// The code of `name` (case-insensitive), nil when unknown.
    public init?(name: String) {
        guard let index = Self.names.firstIndex(of: name.uppercased()) else { return nil }
        rawValue = UInt32(index)
    }

    /// The RFC name, nil for codes without one.
    public var name: String? { rawValue < Self.names.count ? Self.names[Int(rawValue)] : nil }

    /// `REFUSED_STREAM (7)`, or the bare number.
    public var description: String { name.map { "\($0) (\(rawValue))" } ?? String(rawValue) }

    package static let expected =
        "an HTTP/2 error code name such as \"REFUSED_STREAM\" or a number from 0 to 4294967295"

    public init(from decoder: any Decoder) throws {
        do {
            self = try Self(node: try decoder.singleValueContainer().decode(JSONNode.self))
        } catch let error as InputError {
            throw InputError(at: decoder.codingPath, error.message)
        }
    }

    /// The code `node` gives: a name (any case) or a number from 0 to 2^32-1.
    /// - Throws: `InputError` without a path (the caller's field): `unknown error code "NO_ERRO"
    ///   (did you mean "NO_ERROR"?); expected ...` or `expected ..., got -1`.
    package init(node: JSONNode) throws(InputError) {
        switch node {
        case .string(let text):
            guard let code = FaultErrorCode(name: text) else {
                let near = ClosestMatch.hint(text, among: Self.names)
                throw InputError(
                    path: "", message: "unknown error code \(InputError.quoted(text))\(near); expected \(Self.expected)"
                )
            }
            self = code
        case .int(let number) where number >= 0 && number <= Int64(UInt32.max):
            rawValue = UInt32(number)
        default:
            throw InputError(path: "", message: "expected \(Self.expected), got \(node.rendered)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let name { try container.encode(name) } else { try container.encode(rawValue) }
    }
}
