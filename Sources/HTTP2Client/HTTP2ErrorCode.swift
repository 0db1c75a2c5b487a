import CNGHTTP2

/// An HTTP/2 error code as carried by RST_STREAM and GOAWAY (RFC 9113 section 7).
public struct HTTP2ErrorCode: RawRepresentable, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The code on the wire.
    public var rawValue: UInt32

    /// Wraps a code from the wire.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `NO_ERROR` (0).
    public static let noError = HTTP2ErrorCode(rawValue: 0)
    /// `PROTOCOL_ERROR` (1).
    public static let protocolError = HTTP2ErrorCode(rawValue: 1)
    /// `REFUSED_STREAM` (7).
    public static let refusedStream = HTTP2ErrorCode(rawValue: 7)
    /// `ENHANCE_YOUR_CALM` (11).
    public static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 11)

    /// The RFC name, e.g. `REFUSED_STREAM`; nghttp2 says `unknown` for codes outside the RFC.
    public var name: String { String(cString: nghttp2_http2_strerror(rawValue)) }

    /// `NAME (0xN)`, e.g. `REFUSED_STREAM (0x7)`.
    public var description: String { "\(name) (0x\(String(rawValue, radix: 16)))" }
}
