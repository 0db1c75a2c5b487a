import APNsCore
import JSONSupport
import Recording

/// `POST /v1/verify` and `GET /v1/verify/teardown` (docs/testing.md): an expectation about the
/// delivery records answered 200 when it holds and 406 (as MockServer's verify answers) with a
/// message a human can read and the closest records when it does not, so `curl --fail` and any
/// HTTP client can use it as an assertion.
extension ControlAPI {
    /// At most this many of the newest records in scope are compared for near misses.
    static let nearMissWindow: UInt64 = 2_000
    /// At most this many records are listed by a teardown check, per list.
    static let teardownListLimit = 100
    /// At most this many records are decoded by one look of a pending verification that need
    /// not answer yet (a few ms in a release build): a first look over a full store is spread
    /// over the control thread's ticks, so other calls are answered in between.
    static let verificationLookBudget = 100

    func startVerification(body: [UInt8]) throws(ControlError) -> ControlResult {
        let request = try ControlBody.decode(VerifyBody.self, from: body, form: VerifyBody.form)
        var match = request.match
        match.filter = withChannelCreate(match.filter)
        var wait = VerificationWait(
            match: match, count: request.count, timeoutMilliseconds: request.withinMilliseconds)
        // The first look is bounded even without `withinMs`: a large store is looked at over
        // the control loop's ticks, which answer once every record was looked at.
        if let response = waitResult(&wait, timedOut: false) { return .response(response) }
        if request.withinMilliseconds == 0 && wait.caughtUp, let response = waitResult(&wait, timedOut: true) {
            return .response(response)
        }
        return .wait(.verification(wait))
    }

    /// Looks at the store again for a pending verification: the answer once its count settles
    /// it (`ExpectedCount.verdict`), always an answer when `timedOut`; nil means keep waiting.
    public func waitResult(_ wait: inout VerificationWait, timedOut: Bool) -> ControlResponse? {
        let generation = store.generation
        if !timedOut && wait.caughtUp && generation == wait.seenGeneration { return nil }
        wait.seenGeneration = generation
        // Counts found by a partial look are lower bounds: enough for a verdict that need not
        // be final (at least reached, never or at most exceeded); a final one looks at all.
        look(&wait, budget: timedOut ? nil : Self.verificationLookBudget)
        let seqs = wait.matchedSeqs
        guard let passed = wait.count.verdict(matched: seqs.count, final: timedOut) else { return nil }
        // Exactly n found part way: more may follow among the records not looked at yet.
        if passed, !wait.caughtUp, case .exactly = wait.count { return nil }
        return verificationAnswer(wait, seqs: seqs, passed: passed)
    }

    /// Brings `wait.matchedSeqs` up to date at the cost of what changed: only the records after
    /// the last look are matched, unless the store was cleared or a record corrected since
    /// (then all); matches evicted since are dropped.
    private func look(_ wait: inout VerificationWait, budget: Int?) {
        let progress = store.matches(wait.match, epoch: wait.seenEpoch, afterSeq: wait.scannedSeq, budget: budget)
        if progress.restarted {
            wait.matchedSeqs = progress.seqs
        } else {
            if let kept = wait.matchedSeqs.firstIndex(where: { $0 >= progress.firstSeq }) {
                wait.matchedSeqs.removeFirst(kept)
            } else {
                wait.matchedSeqs.removeAll()
            }
            wait.matchedSeqs += progress.seqs
        }
        wait.seenEpoch = progress.epoch
        wait.scannedSeq = progress.lastSeq
        wait.decodedRecords += progress.decoded
        wait.caughtUp = progress.complete
    }

    private func verificationAnswer(_ wait: VerificationWait, seqs: [UInt64], passed: Bool) -> ControlResponse {
        let within = wait.timeoutMilliseconds > 0 ? " within \(wait.timeoutMilliseconds) ms" : ""
        let asked = "\(wait.count.pushes) matching \(wait.match.description)\(within)"
        var misses: [VerificationNearMiss] = []
        var message: String
        if passed {
            message = "verified: \(asked); \(seqs.count) matched"
        } else {
            message = "expected \(asked); \(seqs.count) matched"
            if seqs.count > 0 {
                message +=
                    " (seq \(seqs.prefix(10).map(String.init).joined(separator: ", "))\(seqs.count > 10 ? ", ..." : ""))"
            }
            // Too few matched: show what came closest. Too many: the matches are the answer.
            if wait.count.fallsShort(matched: seqs.count) {
                let newest = store.lastSeq
                let from = max(
                    wait.match.filter.after ?? 0, newest > Self.nearMissWindow ? newest - Self.nearMissWindow : 0)
                let records = store.query(DeliveryFilter(after: from)).deliveries
                misses = wait.match.nearMisses(records).map {
                    VerificationNearMiss(seq: $0.0.seq, differences: $0.1, delivery: $0.0)
                }
                message +=
                    misses.isEmpty
                    ? "; no other record to compare"
                    : "; the closest: "
                        + misses.map { miss in
                            "seq \(miss.seq) (\(miss.differences.map(\.description).joined(separator: "; ")))"
                        }.joined(separator: ", ")
            }
        }
        if wait.gatewayDeleted { message += "; the gateway was deleted before the window ended" }
        return ControlResponse(
            status: passed ? 200 : 406,
            encoding: VerificationAnswer(
                ok: passed, message: message, expected: wait.count.description, match: wait.match.description,
                matched: seqs.count, seqs: seqs, nearMisses: misses))
    }

    /// The teardown check: no push rejected (status 400 or more) except by a fault rule, and
    /// no stream left without an answer (unanswered or still pending) except by a fault rule;
    /// `after` limits it to a test's own records.
    func teardownCheck(_ query: [String: String]) throws(ControlError) -> ControlResponse {
        var after: UInt64?
        if let text = query["after"] {
            guard let value = UInt64(text) else { throw .badRequest("after must be a non-negative integer (a seq)") }
            after = value
        }
        let records = store.query(DeliveryFilter(after: after)).deliveries.filter { $0.fault == nil }
        let rejected = records.filter { $0.status >= 400 }
        let unanswered = records.filter { $0.status == 0 }
        let ok = rejected.isEmpty && unanswered.isEmpty
        var problems: [String] = []
        if !rejected.isEmpty {
            problems.append(
                "\(rejected.count) rejected without a fault rule ("
                    + rejected.prefix(5).map { "seq \($0.seq): \($0.status) \($0.reason?.rawValue ?? "")" }
                    .joined(separator: ", ") + (rejected.count > 5 ? ", ..." : "") + ")")
        }
        if !unanswered.isEmpty {
            problems.append(
                "\(unanswered.count) without an answer ("
                    + unanswered.prefix(5).map { "seq \($0.seq): \($0.unanswered?.rawValue ?? "pending")" }
                    .joined(separator: ", ") + (unanswered.count > 5 ? ", ..." : "") + ")")
        }
        let scope = after.map { " after seq \($0)" } ?? ""
        let message =
            ok
            ? "clean: no push\(scope) was rejected except by a fault rule, and every stream was answered"
            : "not clean\(scope): " + problems.joined(separator: "; ")
        return ControlResponse(
            status: ok ? 200 : 406,
            encoding: TeardownAnswer(
                ok: ok, message: message, rejectedCount: rejected.count, unansweredCount: unanswered.count,
                rejected: Array(rejected.prefix(Self.teardownListLimit)),
                unanswered: Array(unanswered.prefix(Self.teardownListLimit))))
    }
}

/// The `POST /v1/verify` answer.
private struct VerificationAnswer: Encodable {
    let ok: Bool
    let message: String
    let expected: String
    let match: String
    let matched: Int
    let seqs: [UInt64]
    let nearMisses: [VerificationNearMiss]
}

/// One near miss: the record and how it differs.
private struct VerificationNearMiss: Encodable {
    let seq: UInt64
    let differences: [MatchDifference]
    let delivery: DeliveryRecord
}

/// The `GET /v1/verify/teardown` answer.
private struct TeardownAnswer: Encodable {
    let ok: Bool
    let message: String
    let rejectedCount: Int
    let unansweredCount: Int
    let rejected: [DeliveryRecord]
    let unanswered: [DeliveryRecord]
}
