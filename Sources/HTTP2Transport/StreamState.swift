/// One open request stream: what has arrived so far, and the response body being sent.
///
/// Used on its connection's loop thread only and never accessed overlappingly, so the runtime
/// exclusivity check is turned off for what is touched per request (bench/README.md, "Profile
/// and fix").
final class StreamState {
    @exclusivity(unchecked) var id: Int32
    @exclusivity(unchecked) var method = ""
    @exclusivity(unchecked) var path = ""
    @exclusivity(unchecked) var authority: String?
    @exclusivity(unchecked) var headers: [HeaderField] = []
    @exclusivity(unchecked) var body: [UInt8] = []
    /// Body bytes received, kept or not.
    @exclusivity(unchecked) var bodyLength = 0
    /// Bytes of the field section being received (the header section, then the trailers),
    /// counted as RFC 9113 section 6.5.2 does (name + value + 32).
    var headerListSize = 0
    /// True once the header list passed MAX_HEADER_LIST_SIZE: later fields are dropped and the
    /// stream is answered 431.
    var headerListTooLarge = false
    /// Header fields received so far, pseudo-headers included (the next one's position).
    var fieldCount = 0
    /// While the request's header block is being received and its regular fields so far are
    /// those of the connection's previous block: how many of them (they are not stored one by
    /// one; see `RequestAssembler.finishHeaderBlock`). -1 once the block differs.
    @exclusivity(unchecked) var repeatedFields = 0
    /// The request's header block is complete (later fields are trailers).
    @exclusivity(unchecked) var headerBlockDone = false
    /// Position of the first regular (not pseudo-) header field, -1 before it.
    @exclusivity(unchecked) var firstRegularField = -1
    @exclusivity(unchecked) var responseBody: [UInt8] = []
    var responseOffset = 0
    var dispatched = false
    /// The handler's tag for the stream (`HTTP2Request.tag`); 0: none.
    @exclusivity(unchecked) var tag: UInt64 = 0
    /// True once the stream's response HEADERS was serialized for the socket (nghttp2's
    /// on_frame_send; `HTTP2Connection.responseHeadersSent`), not merely submitted: a response
    /// that a close, a GOAWAY or a reset keeps from being sent leaves the stream unanswered.
    @exclusivity(unchecked) var answered = false
    /// Called once, when the response HEADERS is serialized (`HTTP2Connection.perform`'s
    /// `whenAnswered`: a delayed answer's record says its status from then on).
    var onAnswered: (() -> Void)?
    /// Who sent RST_STREAM on the stream, if anyone.
    @exclusivity(unchecked) var resetBy = ResetSide.none
    /// The next object in its connection's list of spare ones (`SpareStreams`, which holds the
    /// reference).
    @exclusivity(unchecked) var nextSpare: Unmanaged<StreamState>?

    /// Body capacity a spare object keeps (bytes; APNs's largest payload is 5120); a larger
    /// buffer is freed.
    static let keptBodyCapacity = 8 * 1024

    init(id: Int32) {
        self.id = id
    }

    /// Empties the object for a new stream, keeping the body's storage: a connection reuses the
    /// objects of its closed streams rather than allocating a stream, its body and its growth per
    /// request. Storage still shared (the application kept the request's body) is left to it and
    /// fresh storage of the same capacity made instead.
    func reset() {
        // Usually already taken by the request (`RequestAssembler.takeRequest`): a check is
        // cheaper than releasing an empty value.
        if !method.isEmpty { method = "" }
        if !path.isEmpty { path = "" }
        if authority != nil { authority = nil }
        // Usually the list is the connection's previous one, shared: let go rather than empty
        // it (which would allocate fresh storage for a shared array).
        headers = []
        if body.capacity > StreamState.keptBodyCapacity {
            body = []
        } else {
            body.removeAll(keepingCapacity: true)
        }
        bodyLength = 0
        headerListSize = 0
        headerListTooLarge = false
        fieldCount = 0
        repeatedFields = 0
        headerBlockDone = false
        firstRegularField = -1
        if responseBody.capacity != 0 { responseBody = [] }
        responseOffset = 0
        dispatched = false
        tag = 0
        answered = false
        if onAnswered != nil { onAnswered = nil }
        resetBy = .none
    }

    /// Which side reset a stream.
    enum ResetSide {
        case none, peer, server
    }
}
