import Glibc

/// The last body one connection sent and what `PayloadInspector` made of it.
///
/// A body's outcome (its `PayloadFacts`, or the parser's message) depends on its bytes alone,
/// and senders often push the same payload many times in a row (a campaign, a retry, a load
/// test), so a body identical to the previous one reuses that outcome instead of being parsed
/// again. Parsing with Foundation's `JSONSerialization` was about a quarter of the instructions
/// per request (callgrind, 25-byte payload); a hit costs one `memcmp`. A different body is
/// parsed as before and replaces the remembered one.
///
/// One per connection, used on that connection's thread only: not thread-safe. It keeps the
/// last body alive (the record usually shares its storage) until the next one replaces it.
public final class PayloadMemo {
    private var body: [UInt8] = []
    private var outcome: PayloadInspector.Outcome?
    /// Bodies answered from the memo instead of being parsed.
    public private(set) var hits = 0

    public init() {}

    /// The outcome of `body`: the remembered one when `body` has the same bytes as the last body
    /// seen, else `inspect(body)`, which is remembered.
    func outcome(of body: [UInt8], inspect: ([UInt8]) -> PayloadInspector.Outcome) -> PayloadInspector.Outcome {
        if let outcome, PayloadMemo.equal(body, self.body) {
            hits += 1
            return outcome
        }
        let fresh = inspect(body)
        self.body = body
        outcome = fresh
        return fresh
    }

    /// Byte equality with one `memcmp` (shared storage compares equal at once).
    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                x.baseAddress == y.baseAddress || x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
            }
        }
    }
}
