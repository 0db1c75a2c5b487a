/// An HTTP/2 error code as carried by RST_STREAM and GOAWAY (RFC 9113 section 7): the one type
/// the transport's faults, the recorded events and the client share.
///
/// Codes without an RFC name (up to 2^32-1) are kept, since a receiver must treat unknown codes
/// as INTERNAL_ERROR. Faults read and write it as JSON (the name or the number, see
/// `HTTP2ErrorCode+JSON.swift` in Faults).
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code on the wire.
    public var rawValue: UInt32

    /// Wraps a code from the wire.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `NO_ERROR` (0).
    public static let noError = HTTP2ErrorCode(rawValue: 0)
    /// `PROTOCOL_ERROR` (1).
    public static let protocolError = HTTP2ErrorCode(rawValue: 1)
    /// `INTERNAL_ERROR` (2).
    public static let internalError = HTTP2ErrorCode(rawValue: 2)
    /// `FLOW_CONTROL_ERROR` (3).
    public static let flowControlError = HTTP2ErrorCode(rawValue: 3)
    /// `SETTINGS_TIMEOUT` (4).
    public static let settingsTimeout = HTTP2ErrorCode(rawValue: 4)
    /// `STREAM_CLOSED` (5).
    public static let streamClosed = HTTP2ErrorCode(rawValue: 5)
    /// `FRAME_SIZE_ERROR` (6).
    public static let frameSizeError = HTTP2ErrorCode(rawValue: 6)
    /// `REFUSED_STREAM` (7).
    public static let refusedStream = HTTP2ErrorCode(rawValue: 7)
    /// `CANCEL` (8).
    public static let cancel = HTTP2ErrorCode(rawValue: 8)
    /// `COMPRESSION_ERROR` (9).
    public static let compressionError = HTTP2ErrorCode(rawValue: 9)
    /// `CONNECT_ERROR` (10).
    public static let connectError = HTTP2ErrorCode(rawValue: 10)
    /// `ENHANCE_YOUR_CALM` (11).
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 11)
    /// `INADEQUATE_SECURITY` (12).
    public static let inadequateSecurity = HTTP2ErrorCode(rawValue: 12)
    /// `HTTP_1_1_REQUIRED` (13).
    public static let http11Required = HTTP2ErrorCode(rawValue: 13)

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

    /// The RFC name, e.g. `REFUSED_STREAM`; nil for codes without one.
    public var name: String? { rawValue < Self.names.count ? Self.names[Int(rawValue)] : nil }

    /// `REFUSED_STREAM (7)`, or the bare number for codes without a name: the form of fault
    /// descriptions and recorded connection events.
    public var description: String { name.map { "\($0) (\(rawValue))" } ?? String(rawValue) }

    /// `REFUSED_STREAM (0x7)`, `unknown (0x1e)` for codes without a name: the form of
    /// `mock-apns send`'s output (as nghttp2's tools print codes).
    public var hexDescription: String { "\(name ?? "unknown") (0x\(String(rawValue, radix: 16)))" }
}
