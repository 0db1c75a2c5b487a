import HTTPFields
import SystemSupport

/// The state of one request in flight: what is left to send and what has arrived.
final class ClientStream {
    /// The request's position in the array given to `send`.
    let index: Int
    /// The request body and how much of it nghttp2 has taken.
    let requestBody: [UInt8]
    var requestOffset = 0
    /// `MonotonicClock` times: submitted to nghttp2, HEADERS written out.
    let submittedAt: UInt64
    var sentAt: UInt64?
    /// The response so far.
    var status: Int?
    var headers: [HeaderField] = []
    var body: [UInt8] = []
    /// The code of a RST_STREAM the server sent for this stream.
    var resetByPeer: HTTP2ErrorCode?

    init(index: Int, requestBody: [UInt8], submittedAt: UInt64) {
        self.index = index
        self.requestBody = requestBody
        self.submittedAt = submittedAt
    }

    /// Records one received header field; a 1xx status starts the header list afresh, since
    /// the final response follows it.
    func header(name: String, value: String) {
        if name == ":status" {
            if let status, (100..<200).contains(status) { headers.removeAll() }
            status = Int(value)
        } else if !name.hasPrefix(":") {
            headers.append(HeaderField(name: name, value: value))
        }
    }
}
