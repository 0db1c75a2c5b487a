/// One rule inside the engine with what it has counted and drawn so far.
struct FaultRuleState {
    /// What a rule did with one request.
    enum Outcome {
        /// Some condition failed (or the rule is spent): try the next rule.
        case skip
        /// Matched, but no fault this time (a `pass` step, a push under the rate limit): the
        /// next rules may still apply.
        case pass
        /// Matched: carry out `action` (not yet resolved); `label` qualifies the rule in the
        /// decision's description, e.g. `step 2/3`.
        case fault(FaultAction, label: String?)
    }

    /// The rule, with its id assigned.
    let rule: FaultRule
    let id: String
    /// Requests that met the static conditions (what `nth` and `everyKth` count).
    private var candidates: UInt64 = 0
    private(set) var matched: UInt64 = 0
    var fired: UInt64 = 0
    private(set) var spent = false
    private var random: SplitMix64?
    /// Matches per open connection, for `timesPerConnection`.
    private var perConnection: [UInt64: Int] = [:]
    /// Per device token, for `rateLimit`.
    private var buckets: [String: TokenBucket] = [:]
    /// The next `sequence` step.
    private var nextStep = 0

    /// Bucket tables larger than this drop their full buckets (a full bucket is as good as none).
    private static let bucketPruneThreshold = 10_000

    /// - Parameter rule: validated, with `id` and (for `probability`) `match.seed` set.
    init(rule: FaultRule) {
        self.rule = rule
        self.id = rule.id ?? ""
        if rule.match.probability != nil { random = SplitMix64(seed: rule.match.seed ?? 0) }
    }

    /// Spent, or over by `now` (an `until` lifetime ends without a request to notice it).
    func isSpent(at now: Int64) -> Bool {
        if spent { return true }
        if case .until(let end) = rule.lifetime { return now >= end.epochMilliseconds }
        return false
    }

    /// Applies the rule to one request, updating its counters.
    mutating func evaluate(_ context: FaultContext, payload: inout FaultPayload) -> Outcome {
        guard !spent else { return .skip }
        let now = context.nowMilliseconds
        switch rule.lifetime {
        case .until(let end) where now >= end.epochMilliseconds:
            spent = true
            return .skip
        case .timesPerConnection(let limit) where perConnection[context.connectionID, default: 0] >= limit:
            return .skip
        default:
            break
        }
        let match = rule.match
        guard match.admits(context, payload: &payload) else { return .skip }
        candidates += 1
        if let nth = match.nth {
            // Counting only goes up: past the Nth the rule can never match again.
            if candidates >= UInt64(nth) { spent = true }
            guard candidates == UInt64(nth) else { return .skip }
        }
        if let k = match.everyKth, !candidates.isMultiple(of: UInt64(k)) { return .skip }
        if let probability = match.probability {
            guard let draw = random?.nextUnit(), draw < probability else { return .skip }
        }
        matched += 1
        switch rule.lifetime {
        case .times(let limit) where matched >= UInt64(limit):
            spent = true
        case .timesPerConnection:
            perConnection[context.connectionID, default: 0] += 1
        default:
            break
        }
        switch rule.action {
        case .sequence(let steps):
            let index = nextStep
            nextStep += 1
            if nextStep >= steps.count { spent = true }
            guard case .action(let action) = steps[index] else { return .pass }
            return .fault(action, label: "step \(index + 1)/\(steps.count)")
        case .rateLimit(let limit):
            guard let token = context.token?.lowercased() else { return .pass }
            if buckets.count > Self.bucketPruneThreshold {
                buckets = buckets.filter {
                    !$0.value.isFull(now: now, perSecond: limit.perSecond, capacity: limit.capacity)
                }
            }
            var bucket = buckets[token] ?? TokenBucket(capacity: limit.capacity, now: now)
            let allowed = bucket.take(now: now, perSecond: limit.perSecond, capacity: limit.capacity)
            buckets[token] = bucket
            if allowed { return .pass }
            return .fault(.respond(FaultResponse(reason: .tooManyRequests)), label: "over \(limit.summary)")
        default:
            return .fault(rule.action, label: nil)
        }
    }

    /// Forgets what was counted for connection `id`.
    mutating func connectionClosed(id: UInt64) {
        perConnection.removeValue(forKey: id)
    }
}
