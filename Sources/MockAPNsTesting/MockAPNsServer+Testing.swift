import Foundation
import MockAPNs

/// Assertions over an in-process server's records for Swift tests (docs/testing.md, "From
/// Swift"): the store is read directly, no control API needed (`configuration.control = nil`
/// is fine). They are `POST /v1/verify`'s rules: the same `DeliveryMatch`, `ExpectedCount` and
/// near misses.
extension MockAPNsServer {
    /// How often `waitForDeliveries` and a `verify` with time look at the store again: 5 ms
    /// (an unchanged store `generation` costs no lock).
    public static let testingPollInterval: Duration = .milliseconds(5)
    /// At most this many of the newest records in scope are compared for near misses.
    public static let nearMissWindow: UInt64 = 10_000

    /// Waits until at least `count` stored records match `match`, and returns every match,
    /// oldest first. Scope a test to its own records with the match's `after`.
    /// - Throws: `DeliveryWaitTimeout` when `timeout` passes (or the task is cancelled) with
    ///   fewer: its `description` says what was expected, how many matched and the closest records.
    public func waitForDeliveries(
        count: Int = 1, matching match: DeliveryMatch = DeliveryMatch(), timeout: Duration = .seconds(5)
    ) async throws(DeliveryWaitTimeout) -> [DeliveryRecord] {
        let outcome = await verify(match, .atLeast(max(1, count)), within: timeout)
        guard outcome.passed else { throw DeliveryWaitTimeout(outcome: outcome) }
        return outcome.matches
    }

    /// Checks that the records matching `match` satisfy `count`: at once, or watching for up to
    /// `within` (at least n passes as soon as n match; at most n, never, watches the whole time),
    /// as `POST /v1/verify` with `withinMs` does. A cancelled task gets its last look at once.
    public func verify(
        _ match: DeliveryMatch = DeliveryMatch(), _ count: ExpectedCount = .atLeast(1), within: Duration = .zero
    ) async -> VerificationOutcome {
        var match = match
        match.filter = withChannelCreate(match.filter)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: within)
        var seenGeneration = UInt64.max
        while true {
            let final = clock.now >= deadline || Task.isCancelled
            let generation = store.generation
            if generation != seenGeneration || final {
                seenGeneration = generation
                let matches = store.query(match.filter).deliveries.filter { match.matches($0) }
                if let passed = count.verdict(matched: matches.count, final: final) {
                    let misses = !passed && count.fallsShort(matched: matches.count) ? nearMisses(match) : []
                    return VerificationOutcome(
                        match: match, count: count, within: within, passed: passed, matches: matches,
                        nearMisses: misses)
                }
            }
            try? await Task.sleep(for: Self.testingPollInterval)
        }
    }

    /// The (up to three) records closest to `match` among the newest `nearMissWindow` after its `after`.
    private func nearMisses(_ match: DeliveryMatch) -> [VerificationOutcome.NearMiss] {
        let newest = store.lastSeq
        let from = max(match.filter.after ?? 0, newest > Self.nearMissWindow ? newest - Self.nearMissWindow : 0)
        return match.nearMisses(store.query(DeliveryFilter(after: from)).deliveries).map {
            VerificationOutcome.NearMiss(record: $0.0, differences: $0.1)
        }
    }
}
