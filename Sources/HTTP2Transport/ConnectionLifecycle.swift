/// Where one connection is in its life, as a value: each case carries what that stage needs, so
/// combinations that cannot happen (a pending close before the session starts, "keep open after
/// GOAWAY" on a connection that sent none) cannot be written. `handle(_:)` moves it on and says
/// what the connection must do (`Action`); it does no I/O itself.
///
/// Replaces `HTTP2Connection`'s `Phase` and the flags beside it: `closeRequested`,
/// `closeWhenWritten`, `keepOpenAfterGoAway`, `opened` and the `session != nil` checks.
enum ConnectionLifecycle: Equatable {
    /// Accepted, `start` not called yet (an admission delay): nothing is read.
    case accepted
    /// Read and dropped, never answered (`HTTP2Admission.silent`).
    case silent
    /// The TLS handshake runs; the HTTP/2 session has not started.
    case handshaking
    /// The HTTP/2 session runs and serves new streams.
    case open
    /// GOAWAY was sent: streams up to its last-stream-id are still answered.
    case goingAway(AfterGoAway)
    /// Close (TCP RST when `reset`) as soon as everything queued so far has been written; read no
    /// further. `wentAway`: a GOAWAY was sent before or since (only `isOpen` depends on it).
    case closingWhenWritten(reset: Bool, wentAway: Bool)
    /// Close (TCP RST when `reset`) as soon as `nghttp2_session_mem_recv` returns: the close was
    /// asked for from inside an nghttp2 callback, where the session must not be deleted.
    case closingWhenSessionReturns(reset: Bool, wentAway: Bool)
    /// The socket is closed and the session deleted.
    case closed

    /// What happens once the streams a GOAWAY left are answered.
    enum AfterGoAway: Equatable {
        /// Close once no stream is left and everything is written.
        case closeWhenIdle
        /// Keep the socket open (new streams are ignored); a timer, if any, closes it.
        case keepOpen
    }

    /// Something that happened to the connection, or something asked of it.
    enum Event: Hashable {
        /// `start()`: serve the connection (`tls`: it begins with a TLS handshake).
        case start(tls: Bool)
        /// `startSilently()`.
        case startSilently
        /// The TLS handshake finished (and ALPN, when required, was agreed).
        case handshakeFinished
        /// The handshake timer fired.
        case handshakeTimedOut
        /// `goAway(...)`: send GOAWAY, then close after `closeAfter` seconds (0 or less: once
        /// idle and written; nil: never).
        case goAway(closeAfter: Double?)
        /// `shutdownGracefully(...)`: GOAWAY, close once idle or after `drainTimeout` seconds.
        case shutdown(drainTimeout: Double)
        /// `closeAfterWriting(reset:)`.
        case closeAfterWriting(reset: Bool)
        /// `close(reset:)`; `whileReceiving`: called from inside an nghttp2 callback.
        case close(reset: Bool, whileReceiving: Bool)
        /// `nghttp2_session_mem_recv` returned; `failed`: with an error (nghttp2 queued GOAWAY).
        case received(failed: Bool)
        /// A flush wrote everything out. `sessionDone`: nghttp2 wants neither to read nor to
        /// write; `streamsOpen`: some stream is still open.
        case written(sessionDone: Bool, streamsOpen: Bool)
    }

    /// What the connection does after a transition.
    enum Action: Equatable {
        /// Nothing.
        case none
        /// Register the socket events, start the HTTP/2 session and flush its SETTINGS.
        case serveCleartext
        /// Register the socket events and arm the handshake timer.
        case beginHandshake
        /// Register a read event that drops what arrives.
        case listenSilently
        /// Start the HTTP/2 session, then read what is already buffered.
        case beginSession
        /// Submit GOAWAY, replace the close timer (`closeAfter` nil: none), flush.
        case sendGoAway(closeAfter: Double?)
        /// Submit GOAWAY for the highest stream processed, arm the drain timer, tell the handler, flush.
        case sendShutdownGoAway(drainTimeout: Double)
        /// Flush what is queued.
        case flush
        /// After a receive: read on.
        case keepReading
        /// After a receive: flush what was decided and read no further.
        case flushAndStopReading
        /// After a failed receive: flush nghttp2's GOAWAY, then close.
        case flushThenClose
        /// Close the socket now (TCP RST when `reset`) and free the session; `notifyHandler`: the
        /// handler heard of the connection (its session started) and hears of the close.
        case close(reset: Bool, notifyHandler: Bool)
    }

    /// True while the session runs and serves new streams (SETTINGS may change); stays true while
    /// a close waits to be carried out, until a GOAWAY.
    var isOpen: Bool {
        switch self {
        case .open, .closingWhenWritten(_, wentAway: false), .closingWhenSessionReturns(_, wentAway: false): true
        default: false
        }
    }

    /// True once a close is decided and waits to be carried out (`closingWhenWritten`,
    /// `closingWhenSessionReturns`): requests completing now are not served.
    var closeDecided: Bool {
        switch self {
        case .closingWhenWritten, .closingWhenSessionReturns: true
        default: false
        }
    }

    /// True once closed.
    var isClosed: Bool {
        if case .closed = self { return true }
        return false
    }

    /// True while the HTTP/2 session exists: frames can be submitted and flushed.
    var sessionRuns: Bool {
        switch self {
        case .open, .goingAway, .closingWhenWritten, .closingWhenSessionReturns: true
        case .accepted, .silent, .handshaking, .closed: false
        }
    }

    /// Moves on for `event` and returns what the connection must do.
    @inline(__always)
    mutating func handle(_ event: Event) -> Action {
        switch event {
        case .start(let tls):
            guard case .accepted = self else { return .none }
            self = tls ? .handshaking : .open
            return tls ? .beginHandshake : .serveCleartext
        case .startSilently:
            guard case .accepted = self else { return .none }
            self = .silent
            return .listenSilently
        case .handshakeFinished:
            guard case .handshaking = self else { return .none }
            self = .open
            return .beginSession
        case .handshakeTimedOut:
            guard case .handshaking = self else { return .none }
            return closeNow(reset: false)
        case .goAway(let closeAfter):
            return goAway(closeAfter: closeAfter)
        case .shutdown(let drainTimeout):
            return shutdown(drainTimeout: drainTimeout)
        case .closeAfterWriting(let reset):
            return closeAfterWriting(reset: reset)
        case .close(let reset, let whileReceiving):
            return close(reset: reset, whileReceiving: whileReceiving)
        case .received(let failed):
            return received(failed: failed)
        case .written(let sessionDone, let streamsOpen):
            return written(sessionDone: sessionDone, streamsOpen: streamsOpen)
        }
    }

    /// Whether a GOAWAY has been sent (for the closing cases' `wentAway`).
    private var wentAway: Bool {
        switch self {
        case .goingAway: true
        case .closingWhenWritten(_, let wentAway), .closingWhenSessionReturns(_, let wentAway): wentAway
        default: false
        }
    }

    private mutating func closeNow(reset: Bool) -> Action {
        let notify = sessionRuns
        self = .closed
        return .close(reset: reset, notifyHandler: notify)
    }

    private mutating func goAway(closeAfter: Double?) -> Action {
        switch self {
        case .open, .goingAway:
            // The socket stays for the whole `closeAfter` (or for good), even once no stream is left.
            self = .goingAway((closeAfter.map { $0 > 0 } ?? true) ? .keepOpen : .closeWhenIdle)
        case .closingWhenWritten(let reset, _):
            self = .closingWhenWritten(reset: reset, wentAway: true)
        case .closingWhenSessionReturns(let reset, _):
            self = .closingWhenSessionReturns(reset: reset, wentAway: true)
        case .accepted, .silent, .handshaking, .closed:
            return .none
        }
        return .sendGoAway(closeAfter: closeAfter)
    }

    private mutating func shutdown(drainTimeout: Double) -> Action {
        switch self {
        case .accepted, .silent, .handshaking:
            return closeNow(reset: false)
        case .open:
            self = .goingAway(.closeWhenIdle)
        case .closingWhenWritten(let reset, wentAway: false):
            self = .closingWhenWritten(reset: reset, wentAway: true)
        case .closingWhenSessionReturns(let reset, wentAway: false):
            self = .closingWhenSessionReturns(reset: reset, wentAway: true)
        case .goingAway, .closingWhenWritten, .closingWhenSessionReturns, .closed:
            return .none
        }
        return .sendShutdownGoAway(drainTimeout: drainTimeout)
    }

    private mutating func closeAfterWriting(reset: Bool) -> Action {
        switch self {
        case .accepted, .silent, .handshaking:
            // Nothing is queued before the session starts: "once written" is now.
            return closeNow(reset: reset)
        case .open, .goingAway, .closingWhenWritten:
            self = .closingWhenWritten(reset: reset, wentAway: wentAway)
            return .flush
        case .closingWhenSessionReturns, .closed:
            // The close when nghttp2 returns comes first (and nothing can be flushed until then).
            return .none
        }
    }

    private mutating func close(reset: Bool, whileReceiving: Bool) -> Action {
        if case .closed = self { return .none }
        if whileReceiving && sessionRuns {
            self = .closingWhenSessionReturns(reset: reset, wentAway: wentAway)
            return .none
        }
        return closeNow(reset: reset)
    }

    @inline(__always)
    private mutating func received(failed: Bool) -> Action {
        switch self {
        case .closingWhenSessionReturns(let reset, _): return closeNow(reset: reset)
        case .closingWhenWritten: return .flushAndStopReading
        case .open, .goingAway: return failed ? .flushThenClose : .keepReading
        case .accepted, .silent, .handshaking, .closed: return .none
        }
    }

    @inline(__always)
    private mutating func written(sessionDone: Bool, streamsOpen: Bool) -> Action {
        switch self {
        case .closingWhenWritten(let reset, _): return closeNow(reset: reset)
        case .open where sessionDone: return closeNow(reset: false)
        case .goingAway(.closeWhenIdle) where sessionDone || !streamsOpen: return closeNow(reset: false)
        default: return .none
        }
    }
}
