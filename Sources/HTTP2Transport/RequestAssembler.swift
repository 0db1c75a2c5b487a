/// Builds requests from what nghttp2 hands over for a stream: header fields (made Strings by a
/// `HeaderFieldInterner`, a block repeating the connection's previous one detected and shared),
/// the header list limit, body bytes, and finally the `HTTP2Request`. No sockets and no nghttp2:
/// it works on `StreamState`s given to it, and tests drive it directly.
///
/// One per connection, used on its loop thread only. Called once per header field, so its
/// per-field methods are `@inline(__always)` into the nghttp2 callbacks and its state is behind
/// `@exclusivity(unchecked)` (a runtime check per access otherwise).
final class RequestAssembler {
    /// Makes the Strings of received header fields, reusing those of earlier requests.
    let interner = HeaderFieldInterner()
    /// SETTINGS_MAX_HEADER_LIST_SIZE as announced: bytes per field section, counted as RFC 9113
    /// section 6.5.2 does (name + value + 32).
    let maxHeaderListSize: Int
    /// Body bytes kept per request (`HTTP2Settings.maxStoredBodyBytes`); more are counted only.
    let maxStoredBodyBytes: Int
    /// The regular header fields of the last request header block completed, and the position
    /// of the first of them (see `finishHeaderBlock`).
    @exclusivity(unchecked) private var previousBlock: [HeaderField] = []
    @exclusivity(unchecked) private var previousBlockStart = -1
    /// `interner.changes` when `previousBlock` was taken: its fields are the interner's own at
    /// their positions only while that holds (a block that made new fields and never completed,
    /// or trailers, replace remembered fields without becoming the previous block).
    @exclusivity(unchecked) private var previousBlockChanges: UInt64 = 0

    /// An assembler enforcing `maxHeaderListSize` bytes per field section and keeping
    /// `maxStoredBodyBytes` of each body.
    init(maxHeaderListSize: Int, maxStoredBodyBytes: Int) {
        self.maxHeaderListSize = maxHeaderListSize
        self.maxStoredBodyBytes = maxStoredBodyBytes
    }

    /// Takes one received header field of `stream` (pseudo-headers included, in arrival order;
    /// the bytes are only read during the call).
    @inline(__always)
    func header(
        on stream: StreamState, name: UnsafePointer<UInt8>, nameLength: Int, value: UnsafePointer<UInt8>,
        valueLength: Int
    ) {
        guard !stream.headerListTooLarge else { return }
        // nghttp2 advertises MAX_HEADER_LIST_SIZE but leaves enforcing it to us; HPACK lets a
        // small frame expand to megabytes, so stop storing at the limit.
        stream.headerListSize += nameLength + valueLength + 32
        if stream.headerListSize > maxHeaderListSize {
            stream.headerListTooLarge = true
            stream.headers = []
            stream.repeatedFields = -1
            return
        }
        let position = stream.fieldCount
        stream.fieldCount += 1
        let nameBytes = UnsafeBufferPointer(start: name, count: nameLength)
        let valueBytes = UnsafeBufferPointer(start: value, count: valueLength)
        if nameLength > 0 && name[0] == UInt8(ascii: ":") {
            switch nameLength {
            case 5 where name[1] == UInt8(ascii: "p"):  // :path
                stream.path = interner.value(at: position, name: nameBytes, value: valueBytes)
            case 7 where name[1] == UInt8(ascii: "m"):  // :method
                stream.method = interner.value(at: position, name: nameBytes, value: valueBytes)
            case 10 where name[1] == UInt8(ascii: "a"):  // :authority
                stream.authority = interner.value(at: position, name: nameBytes, value: valueBytes)
            default: break  // :scheme: nghttp2 checks it, and no String is made of it
            }
            return
        }
        if stream.firstRegularField < 0 { stream.firstRegularField = position }
        let repeated = stream.repeatedFields
        if repeated >= 0 {  // -1 once the block differs, and after it (trailers)
            // Still the previous block's fields, at the same positions: count, store nothing.
            if repeated < previousBlock.count && position == previousBlockStart + repeated
                && interner.changes == previousBlockChanges
                && interner.repeats(at: position, name: nameBytes, value: valueBytes)
            {
                stream.repeatedFields = repeated + 1
                return
            }
            stream.repeatedFields = -1
            stream.headers.reserveCapacity(max(8, repeated + 1))
            stream.headers.append(contentsOf: previousBlock[0..<repeated])
        }
        stream.headers.append(interner.field(at: position, name: nameBytes, value: valueBytes))
    }

    /// The request's header block is complete: a block that repeated the connection's previous
    /// one gets that block's list itself (one reference instead of a String pair per field),
    /// a shorter one its first fields; a block that differed becomes the one the next is
    /// compared with. Trailers come later and are stored field by field. Does nothing the
    /// second time.
    @inline(__always)
    func finishHeaderBlock(_ stream: StreamState) {
        if !stream.headerBlockDone { finishFirstHeaderBlock(stream) }
    }

    private func finishFirstHeaderBlock(_ stream: StreamState) {
        let repeated = stream.repeatedFields
        stream.repeatedFields = -1
        stream.headerBlockDone = true
        // MAX_HEADER_LIST_SIZE bounds each field section (RFC 9113 section 6.5.2): trailers are
        // counted on their own, not on top of the header section.
        stream.headerListSize = 0
        guard !stream.headerListTooLarge else { return }
        if repeated >= 0 {
            if repeated == previousBlock.count && interner.changes == previousBlockChanges {
                stream.headers = previousBlock
                return
            }
            stream.headers.append(contentsOf: previousBlock[0..<repeated])
        }
        previousBlock = stream.headers
        previousBlockStart = stream.firstRegularField
        previousBlockChanges = interner.changes
    }

    /// Takes `length` body bytes of `stream`: kept up to `maxStoredBodyBytes`, counted all.
    @inline(__always)
    func body(on stream: StreamState, _ bytes: UnsafePointer<UInt8>, _ length: Int) {
        let room = max(0, maxStoredBodyBytes - stream.body.count)
        if room > 0 { stream.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: min(room, length))) }
        stream.bodyLength += length
    }

    /// The request as its HEADERS made it (for `HTTP2RequestHandler.headersReceived`): copied,
    /// the stream keeps its fields; the body is empty.
    func headersRequest(on streamID: Int32, from stream: StreamState) -> HTTP2Request {
        HTTP2Request(
            streamID: streamID, method: stream.method, path: stream.path,
            authority: stream.authority, headers: stream.headers, body: [], bodyLength: 0)
    }

    /// The complete request of `stream`, its header block finished. Moved out of the stream, not
    /// copied: the request then holds the only references. Give the body back with `recycleBody`.
    /// Built empty and then filled by swapping: taking each field into the consuming
    /// initializer's arguments made the optimizer copy the whole request and destroy the
    /// original (a retain and a release of each field per push, bench/callgrind.sh).
    @inline(__always)
    func takeRequest(on streamID: Int32, from stream: StreamState) -> HTTP2Request {
        var request = HTTP2Request(emptyOn: streamID, bodyLength: stream.bodyLength)
        swap(&request.method, &stream.method)
        swap(&request.path, &stream.path)
        swap(&request.authority, &stream.authority)
        swap(&request.headers, &stream.headers)
        swap(&request.body, &stream.body)
        return request
    }

    /// Moves `request`'s body back to `stream`, whose object is reused: its storage too, once
    /// the application lets go of it. (The header list is let go of: usually it is the
    /// connection's previous block, shared, and a new one is built in place of a differing one.)
    @inline(__always)
    func recycleBody(of request: inout HTTP2Request, into stream: StreamState) {
        stream.body = take(&request.body, [])
    }

    /// Forgets the remembered fields (the connection closed).
    func removeAll() {
        interner.removeAll()
    }

    /// `value`, leaving `empty` in its place.
    @inline(__always)
    private func take<T>(_ value: inout T, _ empty: T) -> T {
        var taken = empty
        swap(&value, &taken)
        return taken
    }
}
