/// Fixed protections of the transport that are not SETTINGS values.
public enum HTTP2Limits {
    /// RST_STREAM frames a client may send at once before its connection is ended with GOAWAY
    /// INTERNAL_ERROR (nghttp2's token bucket; nghttp2's own default is 1,000).
    public static let streamResetBurst: UInt64 = 100_000
    /// RST_STREAM frames per second the bucket refills (nghttp2's own default is 33): far above
    /// what a sender cancelling timed-out streams sends, low enough to stop a reset flood.
    public static let streamResetsPerSecond: UInt64 = 10_000
}
