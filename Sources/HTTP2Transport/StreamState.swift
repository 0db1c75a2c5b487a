/// One open request stream: what has arrived so far, and the response body being sent.
final class StreamState {
    let id: Int32
    var method = ""
    var path = ""
    var authority: String?
    /// Appended to once per field; unchecked for the same reason as `HTTP2Connection.streams`.
    @exclusivity(unchecked) var headers: [HeaderField] = []
    var body: [UInt8] = []
    /// Body bytes received, kept or not.
    var bodyLength = 0
    /// Header bytes received so far, counted as RFC 9113 section 6.5.2 does (name + value + 32).
    var headerListSize = 0
    /// True once the header list passed MAX_HEADER_LIST_SIZE: later fields are dropped and the
    /// stream is answered 431.
    var headerListTooLarge = false
    /// Header fields received so far, pseudo-headers included (the next one's position).
    var fieldCount = 0
    var responseBody: [UInt8] = []
    var responseOffset = 0
    var dispatched = false

    init(id: Int32) {
        self.id = id
        headers.reserveCapacity(8)
    }
}
