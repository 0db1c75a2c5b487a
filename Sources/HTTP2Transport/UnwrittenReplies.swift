import CLibevent

/// The HTTP/1.1 answers an `HTTP1Server` has sent whose bytes libevent has not yet written out,
/// by connection: raised by `HTTP1Exchange.respond`, lowered by libevent's completion callback
/// of the request (`evhttp_request_set_on_complete_cb`), and forgotten with the connection when
/// libevent frees it (its close callback: a client that vanished never completes its answer).
/// Touched only on the server's loop thread.
final class UnwrittenReplies: @unchecked Sendable {
    private var byConnection: [UInt: Int] = [:]

    /// Answers sent and not yet written out, over every open connection.
    var count: Int { byConnection.values.reduce(0, +) }

    /// An answer to `request` is about to be sent: counted until written or its connection closes.
    func track(_ request: OpaquePointer) {
        guard let connection = evhttp_request_get_connection(request) else { return }
        byConnection[UInt(bitPattern: connection), default: 0] += 1
        let arg = Unmanaged.passUnretained(self).toOpaque()
        evhttp_request_set_on_complete_cb(
            request,
            { request, arg in
                guard let request, let arg, let connection = evhttp_request_get_connection(request) else { return }
                Unmanaged<UnwrittenReplies>.fromOpaque(arg).takeUnretainedValue().written(on: connection)
            }, arg)
        evhttp_connection_set_closecb(
            connection,
            { connection, arg in
                guard let connection, let arg else { return }
                Unmanaged<UnwrittenReplies>.fromOpaque(arg).takeUnretainedValue().byConnection[
                    UInt(bitPattern: connection)] = nil
            }, arg)
    }

    private func written(on connection: OpaquePointer) {
        let key = UInt(bitPattern: connection)
        guard let n = byConnection[key] else { return }
        byConnection[key] = n > 1 ? n - 1 : nil
    }
}
