import CNGHTTP2

/// The nghttp2 server session of one connection: started after the handshake, fed the bytes
/// read, asked for the bytes to write, and given the frames to submit (responses, GOAWAY,
/// RST_STREAM, SETTINGS) and the DATA to acknowledge (flow control). nghttp2's callbacks
/// (`HTTP2Callbacks`) reach the connection through the `user` pointer given to `start`.
///
/// Confined to its connection's loop thread. A final class the connection holds for its whole
/// life (`let`): reaching it costs a load, no reference counting, and its per-request methods
/// are `@inline(__always)`.
final class HTTP2Session {
    /// `nghttp2_session *`, nil before `start` and after `delete`.
    @exclusivity(unchecked) private var session: OpaquePointer?
    /// True while `receive` runs (and so nghttp2 may be running our callbacks): nghttp2 must not
    /// be re-entered then, nor the session deleted.
    @exclusivity(unchecked) private(set) var isReceiving = false
    /// While true, received DATA is not acknowledged (`withholdAcknowledgements`).
    @exclusivity(unchecked) private var withholding = false
    /// DATA received while withholding, acknowledged by `acknowledgeWithheld`.
    private var withheld: [(streamID: Int32, length: Int)] = []

    /// True between `start` and `delete`.
    var isStarted: Bool { session != nil }

    /// Starts the server session. `user` is the callbacks' `user_data` (the connection,
    /// unretained: it outlives the session).
    func start(user: UnsafeMutableRawPointer) {
        var session: OpaquePointer?
        nghttp2_session_server_new2(&session, HTTP2Callbacks.shared.callbacks, user, HTTP2Callbacks.shared.options)
        self.session = session
    }

    /// Submits the first SETTINGS, with `settings`'s values.
    func submitSettings(_ settings: HTTP2Settings) {
        var entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_HEADER_TABLE_SIZE.rawValue), value: settings.headerTableSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: settings.maxConcurrentStreams),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: settings.initialWindowSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue), value: settings.maxFrameSize),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue), value: settings.maxHeaderListSize),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    /// Frees the session (not while `isReceiving`).
    func delete() {
        if let session { nghttp2_session_del(session) }
        session = nil
        withholding = false
        withheld.removeAll()
    }

    // MARK: Bytes in and out

    /// Processes `count` received bytes; our callbacks run meanwhile.
    /// - Returns: bytes consumed, or a negative nghttp2 error (nghttp2 then queued GOAWAY).
    @inline(__always)
    func receive(_ bytes: UnsafeRawPointer, count: Int) -> Int {
        isReceiving = true
        let consumed = nghttp2_session_mem_recv(session, bytes.assumingMemoryBound(to: UInt8.self), count)
        isReceiving = false
        return consumed
    }

    /// The next bytes nghttp2 wants sent, valid until the next call: count > 0 with `data` set,
    /// 0 when there is nothing more, negative on a fatal error (close then).
    @inline(__always)
    func nextOutput(_ data: inout UnsafePointer<UInt8>?) -> Int {
        nghttp2_session_mem_send(session, &data)
    }

    /// True when nghttp2 wants neither to read nor to write (both sides sent GOAWAY and the
    /// streams are done, or a fatal error): the connection has nothing left to do.
    @inline(__always)
    var isDone: Bool {
        nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// The highest stream id nghttp2 has processed (0 before `start`).
    var lastProcessedStreamID: Int32 { session.map { nghttp2_session_get_last_proc_stream_id($0) } ?? 0 }

    // MARK: Frames

    /// Submits a response: `count` header fields at `fields` (copied during the call), then the
    /// body from `HTTP2Callbacks.readResponseBody` when `hasBody`, else END_STREAM on HEADERS.
    @inline(__always)
    func submitResponse(on streamID: Int32, fields: UnsafePointer<nghttp2_nv>, count: Int, hasBody: Bool) {
        if hasBody {
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil),
                read_callback: HTTP2Callbacks.readResponseBody)
            nghttp2_submit_response(session, streamID, fields, count, &provider)
        } else {
            nghttp2_submit_response(session, streamID, fields, count, nil)
        }
    }

    /// Submits RST_STREAM with the HTTP/2 error code `errorCode`.
    func submitResetStream(_ streamID: Int32, errorCode: UInt32) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
    }

    /// Submits GOAWAY with `errorCode`, `lastStreamID` and `debugData` (opaque bytes).
    func submitGoAway(errorCode: UInt32, lastStreamID: Int32, debugData: [UInt8]) {
        debugData.withUnsafeBufferPointer { data in
            _ = nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, errorCode,
                data.baseAddress, data.count)
        }
    }

    /// Ends the session: GOAWAY with `errorCode` and the last stream processed; nghttp2 reads
    /// nothing more, so the connection closes once the frame is written (`isDone`).
    func terminate(errorCode: UInt32) {
        _ = nghttp2_session_terminate_session(session, errorCode)
    }

    /// Submits SETTINGS with MAX_CONCURRENT_STREAMS `limit` alone.
    func submitMaxConcurrentStreams(_ limit: UInt32) {
        var entry = nghttp2_settings_entry(
            settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit)
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entry, 1)
    }

    // MARK: Flow control

    /// Acknowledges `length` bytes of DATA received on `streamID` (nghttp2 then sends
    /// WINDOW_UPDATE), unless acknowledgements are withheld: then they are kept for later.
    @inline(__always)
    func consume(_ streamID: Int32, _ length: Int) {
        if withholding {
            withheld.append((streamID, length))
        } else {
            nghttp2_session_consume(session, streamID, length)
        }
    }

    /// From now on, received DATA is not acknowledged until `acknowledgeWithheld`.
    func withholdAcknowledgements() {
        withholding = true
    }

    /// Acknowledges the DATA withheld since `withholdAcknowledgements` and stops withholding.
    /// - Returns: how many bytes were acknowledged.
    func acknowledgeWithheld() -> Int {
        withholding = false
        guard let session else {
            withheld.removeAll()
            return 0
        }
        let withheldBytes = withheld.reduce(0) { $0 + $1.length }
        for (streamID, length) in withheld {
            // A stream may be gone; its bytes still count for the connection window.
            if nghttp2_session_consume(session, streamID, length) != 0 {
                nghttp2_session_consume_connection(session, length)
            }
        }
        withheld.removeAll()
        return withheldBytes
    }
}
