import Recording

/// A `POST /v1/verify` with time left (`withinMs`) that is not settled yet (docs/testing.md): the
/// HTTP adapter keeps it inside a `ControlWait` and passes it `inout` to
/// `ControlAPI.waitResult(_:timedOut:)`, which looks again whenever the store changed.
public struct VerificationWait: Sendable {
    /// What is counted.
    public let match: DeliveryMatch
    /// How many are expected.
    public let count: ExpectedCount
    /// How long to wait or watch, in milliseconds from when `handle` returned the wait.
    public let timeoutMilliseconds: Int
    /// The store's `generation` at the last look: no change, no work.
    var seenGeneration: UInt64 = .max
    /// What the looks so far found (incremental, as `GET /v1/deliveries/wait` counts): the
    /// store's clears plus corrections at the last look (a change restarts from scratch), the
    /// newest seq looked at, the matching seqs up to it, oldest first, and how many records were
    /// decoded in all (the cost beyond the compact filter).
    var seenEpoch: UInt64 = .max
    var scannedSeq: UInt64 = 0
    var matchedSeqs: [UInt64] = []
    var decodedRecords = 0
    /// False while the records up to the store's newest are not all looked at (a look decodes
    /// at most `ControlAPI.verificationLookBudget` records unless it must answer): the HTTP
    /// adapter looks again at its next tick even when the store did not change.
    public internal(set) var caughtUp = false
    /// True when it is answered because its gateway was deleted (by `DELETE` or its idle TTL)
    /// before `timeoutMilliseconds` ended: the answer's `message` says so.
    public internal(set) var gatewayDeleted = false

    init(match: DeliveryMatch, count: ExpectedCount, timeoutMilliseconds: Int) {
        self.match = match
        self.count = count
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}
