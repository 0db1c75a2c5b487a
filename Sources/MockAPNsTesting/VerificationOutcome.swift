import MockAPNs

/// What `MockAPNsServer.verify` found: whether the expectation held, the matching records, and
/// for too few matches the closest records with the fields that differed (docs/testing.md).
public struct VerificationOutcome: Sendable, CustomStringConvertible {
    /// A record that came close, and how it differed.
    public struct NearMiss: Sendable {
        /// The record.
        public var record: DeliveryRecord
        /// Each field that differed: expected and actual, as JSON text.
        public var differences: [MatchDifference]
    }

    /// What was matched.
    public var match: DeliveryMatch
    /// How many were expected.
    public var count: ExpectedCount
    /// How long it watched at most.
    public var within: Duration
    /// True when the expectation held.
    public var passed: Bool
    /// Every matching record, oldest first.
    public var matches: [DeliveryRecord]
    /// Up to three records closest to `match`, fewest differences first (only when too few matched).
    public var nearMisses: [NearMiss]

    /// For a human, as `POST /v1/verify`'s `message`: `expected at least 1 push matching
    /// token=…; 0 matched; the closest: seq 5 (payload.aps.badge: expected 3, got 2)`.
    public var description: String {
        let milliseconds = within.components.seconds * 1000 + within.components.attoseconds / 1_000_000_000_000_000
        let time = milliseconds > 0 ? " within \(milliseconds) ms" : ""
        let asked = "\(count.pushes) matching \(match.description)\(time)"
        guard !passed else { return "verified: \(asked); \(matches.count) matched" }
        var message = "expected \(asked); \(matches.count) matched"
        if !matches.isEmpty {
            let seqs = matches.prefix(10).map { String($0.seq) }.joined(separator: ", ")
            message += " (seq \(seqs)\(matches.count > 10 ? ", ..." : ""))"
        }
        if count.fallsShort(matched: matches.count) {
            message +=
                nearMisses.isEmpty
                ? "; no other record to compare"
                : "; the closest: "
                    + nearMisses.map { miss in
                        "seq \(miss.record.seq) (\(miss.differences.map(\.description).joined(separator: "; ")))"
                    }.joined(separator: ", ")
        }
        return message
    }
}
