import APNsCore

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
    /// When the rule was added, milliseconds since the Unix epoch (`probabilityRamp` counts from it).
    let addedAt: Int64
    /// Per latency seed, the generator of random delays (`FaultLatency`).
    private var latencyRandom: [UInt64: SplitMix64] = [:]
    /// Per open connection, for `streamRateLimit`: its bucket and the streams refused so far.
    private var streamBuckets: [UInt64: TokenBucket] = [:]
    private var refusedStreams: [UInt64: Int] = [:]

    /// Bucket tables larger than this drop their full buckets (a full bucket is as good as none).
    private static let bucketPruneThreshold = 10_000

    /// - Parameters:
    ///   - rule: validated, with `id`, `match.seed` (when it draws) and latency seeds set.
    ///   - addedAt: now, milliseconds since the Unix epoch.
    init(rule: FaultRule, addedAt: Int64 = 0) {
        self.rule = rule
        self.id = rule.id ?? ""
        self.addedAt = addedAt
        if rule.match.probability != nil || rule.match.probabilityRamp != nil {
            random = SplitMix64(seed: rule.match.seed ?? 0)
        }
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
        if let probability = match.probability
            ?? match.probabilityRamp?.probability(
                elapsedMilliseconds: now - addedAt)
        {
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
            return .fault(drawingDelays(action), label: "step \(index + 1)/\(steps.count)")
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
        case .streamRateLimit(let limit):
            let connection = context.connectionID
            var bucket = streamBuckets[connection] ?? TokenBucket(capacity: limit.capacity, now: now)
            let allowed = bucket.take(now: now, perSecond: limit.perSecond, capacity: limit.capacity)
            streamBuckets[connection] = bucket
            if allowed { return .pass }
            let refused = refusedStreams[connection, default: 0]
            if let after = limit.goawayAfter, refused >= after {
                return .fault(
                    .goaway(GoawayFault(errorCode: .enhanceYourCalm)),
                    label: "over \(limit.summary), \(refused) streams refused on connection \(connection)")
            }
            refusedStreams[connection] = refused + 1
            return .fault(
                .resetStream(.enhanceYourCalm),
                label: "over \(limit.summary), refused stream \(refused + 1) on connection \(connection)")
        default:
            return .fault(drawingDelays(rule.action), label: nil)
        }
    }

    /// Forgets what was counted for connection `id`.
    mutating func connectionClosed(id: UInt64) {
        perConnection.removeValue(forKey: id)
        streamBuckets.removeValue(forKey: id)
        refusedStreams.removeValue(forKey: id)
    }

    /// `action` with every random delay replaced by a `delay` of a fresh draw from its seed's generator.
    private mutating func drawingDelays(_ action: FaultAction) -> FaultAction {
        switch action {
        case .randomDelay(let latency, let then):
            let seed = latency.seed ?? 0
            var generator = latencyRandom[seed] ?? SplitMix64(seed: seed)
            let milliseconds = latency.draw(&generator)
            latencyRandom[seed] = generator
            return .delay(milliseconds: milliseconds, then: then.map { drawingDelays($0) })
        case .delay(let milliseconds, let then):
            return .delay(milliseconds: milliseconds, then: then.map { drawingDelays($0) })
        default:
            return action
        }
    }
}
