import HTTPFields

/// A GOAWAY frame received from the server.
public struct HTTP2GoAway: Sendable, Equatable, CustomStringConvertible {
    /// Why the server is going away.
    public var errorCode: HTTP2ErrorCode
    /// The highest stream id the server may have processed; higher streams were not processed
    /// and are safe to retry on a new connection.
    public var lastStreamID: Int32
    /// The opaque debug data, often a UTF-8 explanation.
    public var debugData: [UInt8]

    /// Creates a GOAWAY description.
    public init(errorCode: HTTP2ErrorCode, lastStreamID: Int32, debugData: [UInt8] = []) {
        self.errorCode = errorCode
        self.lastStreamID = lastStreamID
        self.debugData = debugData
    }

    /// The debug data as text (invalid UTF-8 is replaced).
    public var debugText: String { String(decoding: debugData, as: UTF8.self) }

    /// e.g. `GOAWAY ENHANCE_YOUR_CALM (0xb), last stream 3, debug data "too many requests"`.
    public var description: String {
        var text = "GOAWAY \(errorCode.hexDescription), last stream \(lastStreamID)"
        if !debugData.isEmpty { text += ", debug data \"\(debugText)\"" }
        return text
    }
}
