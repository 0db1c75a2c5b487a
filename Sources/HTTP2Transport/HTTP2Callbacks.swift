import CNGHTTP2

/// The nghttp2 callback table shared by every server session. Callbacks are non-capturing and
/// find their connection through `user_data`.
final class HTTP2Callbacks: @unchecked Sendable {
    /// Immutable after init; nghttp2 copies it into each session.
    let callbacks: OpaquePointer
    let options: OpaquePointer

    static let shared = HTTP2Callbacks()

    private init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, user in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            else { return 0 }
            withConnection(user) { $0.beginStream(frame.pointee.hd.stream_id) }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value,
                frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue)
            else { return 0 }
            withConnection(user) {
                $0.header(
                    frame.pointee.hd.stream_id, name: name, nameLength: nameLength, value: value,
                    valueLength: valueLength)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data else { return 0 }
            withConnection(user) { $0.data(streamID, data, length) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            let type = frame.pointee.hd.type
            let endStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
            if endStream && (type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue)) {
                withConnection(user) { $0.requestComplete(frame.pointee.hd.stream_id) }
            } else if type == UInt8(NGHTTP2_HEADERS.rawValue) && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                withConnection(user) { $0.headersComplete(frame.pointee.hd.stream_id) }
            } else if type == UInt8(NGHTTP2_RST_STREAM.rawValue) {
                withConnection(user) { $0.resetReceived(frame.pointee.hd.stream_id) }
            } else if type == UInt8(NGHTTP2_WINDOW_UPDATE.rawValue) || type == UInt8(NGHTTP2_PRIORITY.rawValue) {
                withConnection(user) { $0.idleFrameReceived() }
            }
            if type == UInt8(NGHTTP2_HEADERS.rawValue) && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
                withConnection(user) { $0.frameBudget.streamOpened() }
            }
            return 0
        }
        // Fires as nghttp2 serializes a frame for the socket: a response's HEADERS makes its
        // stream answered (`HTTP2Connection.responseHeadersSent`), not its submission.
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            if let frame, frame.pointee.hd.type == UInt8(NGHTTP2_DATA.rawValue) {
                withConnection(user) { $0.frameBudget.dataFrameSent() }
                return 0
            }
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                frame.pointee.headers.cat == NGHTTP2_HCAT_RESPONSE
            else { return 0 }
            withConnection(user) { $0.responseHeadersSent(frame.pointee.hd.stream_id) }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, user in
            withConnection(user) { $0.streamClosed(streamID) }
            return 0
        }
        self.callbacks = callbacks!
        var options: OpaquePointer?
        nghttp2_option_new(&options)
        // We acknowledge received DATA ourselves (nghttp2_session_consume), so a fault can hold
        // WINDOW_UPDATE back.
        nghttp2_option_set_no_auto_window_update(options, 1)
        // nghttp2's rapid-reset guard (CVE-2023-44487) ends a connection with GOAWAY
        // INTERNAL_ERROR after 1,000 RST_STREAMs plus 33 per second. A sender that cancels its
        // timed-out streams under load crosses that, and Apple documents no such limit, so a
        // mock must not impose it: the guard stays only against a runaway client.
        nghttp2_option_set_stream_reset_rate_limit(
            options, HTTP2Limits.streamResetBurst, HTTP2Limits.streamResetsPerSecond)
        // Responses are encoded without HPACK's dynamic table (RFC 7541 section 6.2.2, literals
        // without indexing; the size is announced as 0 in the first header block). What an APNs
        // response carries changes every time (apns-id, apns-unique-id): indexing it cost an
        // insertion and an eviction per response on both sides, most of nghttp2's send path.
        nghttp2_option_set_max_deflate_dynamic_table_size(options, 0)
        self.options = options!
    }

    /// The DATA source for response bodies: reads from the stream's buffered body.
    static let readResponseBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return withConnection(user) { $0.readResponseBody(streamID, into: buffer, length: length, flags: flags) }
    }
}

/// Calls `body` with the session's connection. The connection outlives its session (it deletes
/// the session when it closes), so no retain and release is needed around the call (several
/// callbacks per request; bench/README.md, "Profile and fix").
@inline(__always)
private func withConnection<R>(_ user: UnsafeMutableRawPointer?, _ body: (HTTP2Connection) -> R) -> R {
    Unmanaged<HTTP2Connection>.fromOpaque(user!)._withUnsafeGuaranteedRef(body)
}
