import CNGHTTP2

/// The nghttp2 callback table shared by every client session. Callbacks are non-capturing and
/// find their connection through `user_data`.
final class ClientCallbacks: @unchecked Sendable {
    /// `nghttp2_session_callbacks *`, immutable after init (nghttp2 copies it into each session).
    let callbacks: OpaquePointer

    static let shared = ClientCallbacks()

    private init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else {
                return 0
            }
            connection(user).receivedHeader(
                frame.pointee.hd.stream_id,
                name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, user in
            guard let data else { return 0 }
            connection(user).receivedData(streamID, UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame else { return 0 }
            connection(user).receivedFrame(frame.pointee)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, user in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
            connection(user).sentHeaders(frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, libraryError, user in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) else { return 0 }
            connection(user).headersNotSent(frame.pointee.hd.stream_id, libraryError: libraryError)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, user in
            connection(user).streamClosed(streamID, errorCode: errorCode)
            return 0
        }
        self.callbacks = callbacks!
    }

    /// The DATA source for request bodies: copies from the stream's body.
    static let readRequestBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        return connection(user).readRequestBody(streamID, into: buffer, length: length, flags: flags)
    }
}

@inline(__always)
private func connection(_ user: UnsafeMutableRawPointer?) -> HTTP2ClientConnection {
    Unmanaged<HTTP2ClientConnection>.fromOpaque(user!).takeUnretainedValue()
}
