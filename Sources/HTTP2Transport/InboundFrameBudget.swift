/// How many frames that ask nothing of the application a client may send on one connection
/// (issue 19 §3): WINDOW_UPDATE and PRIORITY. nghttp2 1.52 bounds PING and SETTINGS (their ACKs
/// queue, `nghttp2_option_set_max_outbound_ack`) and RST_STREAM (`HTTP2Limits`), but reads these
/// two at line rate without limit, so one client sending nothing else held a worker thread and
/// a core: a good client's push p99 went from about 10 ms to over 200 ms (tests/live/test_starvation.py).
///
/// The allowance grows with what the connection does, as Envoy's flood guard does: `base`, plus
/// `perStream` for each request stream the client opens, plus `perDataFrame` for each DATA frame
/// the server sends (a client acknowledges received DATA with WINDOW_UPDATE on the stream and on
/// the connection). A client past it gets GOAWAY ENHANCE_YOUR_CALM and is closed.
struct InboundFrameBudget {
    /// Frames allowed before the connection has done anything.
    static let base = 1_000
    /// Frames allowed per request stream the client opens.
    static let perStream = 4
    /// Frames allowed per DATA frame the server sends.
    static let perDataFrame = 4

    private var spent = 0
    private var allowance = InboundFrameBudget.base

    /// The client opened a request stream.
    mutating func streamOpened() { allowance &+= Self.perStream }

    /// The server sent a DATA frame.
    mutating func dataFrameSent() { allowance &+= Self.perDataFrame }

    /// A WINDOW_UPDATE or PRIORITY frame arrived; false once the client is past its allowance.
    mutating func frameReceived() -> Bool {
        spent &+= 1
        return spent <= allowance
    }
}
