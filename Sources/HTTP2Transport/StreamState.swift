/// One open request stream: what has arrived so far, and the response body being sent.
///
/// Used on its connection's loop thread only and never accessed overlappingly, so the runtime
/// exclusivity check (about 80 instructions per access) is turned off for what is touched per request.
final class StreamState {
    let id: Int32
    @exclusivity(unchecked) var method = ""
    @exclusivity(unchecked) var path = ""
    @exclusivity(unchecked) var authority: String?
    @exclusivity(unchecked) var headers: [HeaderField] = []
    @exclusivity(unchecked) var body: [UInt8] = []
    /// Body bytes received, kept or not.
    @exclusivity(unchecked) var bodyLength = 0
    /// Header bytes received so far, counted as RFC 9113 section 6.5.2 does (name + value + 32).
    var headerListSize = 0
    /// True once the header list passed MAX_HEADER_LIST_SIZE: later fields are dropped and the
    /// stream is answered 431.
    var headerListTooLarge = false
    /// Header fields received so far, pseudo-headers included (the next one's position).
    var fieldCount = 0
    @exclusivity(unchecked) var responseBody: [UInt8] = []
    var responseOffset = 0
    var dispatched = false

    init(id: Int32) {
        self.id = id
        headers.reserveCapacity(8)
    }
}
