import JSONInput
import JSONSupport

/// The fault engine's mutable state, guarded by its mutex: the ordered rules, the id counter,
/// the sick connections, and an index of the rules by what they match.
///
/// The index: a rule whose match names a `token` is filed under it (lowercase), else one naming
/// a `topic` under that, else one naming a `listener` under that; every other rule is
/// unindexed. A push is tried against the rules filed under its token, its topic and its
/// listener and the unindexed ones, merged back into rule order: the rules left out could only
/// have been skipped (their filed condition fails), and a skipped rule counts nothing, so the
/// decisions and counters are those of trying every rule. One difference, invisible to
/// decisions: a rule left out does not notice that its `until` lifetime has passed, so it
/// keeps the engine armed (`armedCount`) until it is tried or removed.
struct FaultEngineState {
    /// A connection a `sickConnection` action struck: every later stream gets `response`.
    struct SickMark {
        var ruleID: String
        var response: FaultResponse
    }

    private(set) var rules: [FaultRuleState] = []
    /// The number in the next assigned id (`f1`, `f2`, ...); never reused, so a stale id
    /// cannot remove a newer rule.
    private var nextNumber = 1
    private(set) var sick: [UInt64: SickMark] = [:]
    /// The most rules held at once; `prepare` refuses more.
    let maxRules: Int
    /// False: every rule is tried for every push (the reference the index is tested against).
    let usesIndex: Bool
    /// Each rule's position in `rules`, by id.
    private var positions: [String: Int] = [:]
    /// Positions in `rules`, ascending, of the rules filed under a token, a topic, a listener.
    private var byToken: [String: [Int]] = [:]
    private var byTopic: [String: [Int]] = [:]
    private var byListener: [String: [Int]] = [:]
    /// Positions, ascending, of the rules filed under none of these.
    private var unindexed: [Int] = []
    /// The rules not spent (as far as they have been tried).
    private var liveCount = 0
    /// How many times a rule was tried against a push, in all (what the index saves; for tests).
    private(set) var tries: UInt64 = 0

    /// - Parameters:
    ///   - maxRules: the most rules held at once.
    ///   - usesIndex: false to try every rule for every push.
    init(maxRules: Int = FaultEngine.defaultMaxRules, usesIndex: Bool = true) {
        self.maxRules = maxRules
        self.usesIndex = usesIndex
    }

    /// What keeps the engine armed: rules not yet spent, and sick connections.
    var armedCount: Int { liveCount + sick.count }

    /// Whether rule `id` is held.
    func contains(id: String) -> Bool { positions[id] != nil }

    /// Validates `rule`, then assigns it an id (when it has none) and a seed (when it draws and
    /// has none); `append` stores it. `taken` holds the ids of rules added in the same batch;
    /// `path` prefixes error fields (e.g. `[1]`).
    mutating func prepare(_ rule: FaultRule, taken: Set<String>, path: String) throws(FaultRuleError) -> FaultRule {
        try rule.validate(at: path)
        var rule = rule
        rule.match.normalize()
        if let id = rule.id {
            guard !taken.contains(id), positions[id] == nil else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "id"), message: "\(InputError.quoted(id)) is already in use")
            }
        } else {
            var id: String
            repeat {
                id = "f\(nextNumber)"
                nextNumber += 1
            } while taken.contains(id) || positions[id] != nil
            rule.id = id
        }
        // Below 2^53 so the seeds shown in listings survive JavaScript's JSON numbers.
        if rule.match.draws && rule.match.seed == nil { rule.match.seed = UInt64.random(in: 0..<(1 << 53)) }
        rule.action = rule.action.seedingLatencies { UInt64.random(in: 0..<(1 << 53)) }
        return rule
    }

    /// - Parameter now: milliseconds since the Unix epoch (a `probabilityRamp` starts then).
    mutating func append(_ rule: FaultRule, now: Int64) {
        let state = FaultRuleState(rule: rule, addedAt: now)
        rules.append(state)
        file(rules.count - 1)
        if !state.spent { liveCount += 1 }
    }

    /// Enters the rule at `position` (the highest so far) in the index.
    private mutating func file(_ position: Int) {
        let rule = rules[position]
        positions[rule.id] = position
        let match = rule.rule.match
        if let token = match.token {
            byToken[token, default: []].append(position)
        } else if let topic = match.topic {
            byTopic[topic, default: []].append(position)
        } else if let listener = match.listener {
            byListener[listener, default: []].append(position)
        } else {
            unindexed.append(position)
        }
    }

    /// Builds the index anew (after a removal moved the positions).
    private mutating func reindex() {
        positions = [:]
        byToken = [:]
        byTopic = [:]
        byListener = [:]
        unindexed = []
        for position in rules.indices { file(position) }
    }

    mutating func remove(id: String) -> Bool {
        guard let index = positions[id] else { return false }
        if !rules[index].spent { liveCount -= 1 }
        rules.remove(at: index)
        reindex()
        sick = sick.filter { $0.value.ruleID != id }
        return true
    }

    mutating func removeAll() {
        rules.removeAll()
        reindex()
        liveCount = 0
        sick.removeAll()
    }

    mutating func connectionClosed(id: UInt64) {
        sick.removeValue(forKey: id)
        for index in rules.indices { rules[index].connectionClosed(id: id) }
    }

    func statuses(now: Int64) -> [FaultRuleStatus] {
        rules.map { state in
            FaultRuleStatus(
                rule: state.rule, matched: state.matched, fired: state.fired, spent: state.isSpent(at: now),
                sickConnections: sick.filter { $0.value.ruleID == state.id }.keys.sorted(),
                rampStartedAt: state.rule.match.probabilityRamp == nil ? nil : state.addedAt)
        }
    }

    /// The sick connection's answer, else the first rule that matches with a fault.
    mutating func evaluate(_ context: FaultContext) -> FaultDecision? {
        if let mark = sick[context.connectionID] {
            if let index = positions[mark.ruleID] { rules[index].fired += 1 }
            return FaultDecision(
                ruleID: mark.ruleID, action: .respond(mark.response),
                description:
                    "rule \(mark.ruleID): sick connection \(context.connectionID): respond \(mark.response.summary)",
                ruleActionType: "sickConnection")
        }
        var payload = FaultPayload(context.payload)
        var candidates = candidates(for: context)
        while let index = candidates.next() {
            let wasSpent = rules[index].spent
            tries += 1
            let outcome = rules[index].evaluate(context, payload: &payload)
            if !wasSpent && rules[index].spent { liveCount -= 1 }
            guard case .fault(let action, let label) = outcome else { continue }
            var sickResponse: FaultResponse?
            let resolved = Self.resolve(action, now: context.nowMilliseconds, sick: &sickResponse)
            let id = rules[index].id
            rules[index].fired += 1
            var text = "rule \(id)"
            if let label { text += " \(label)" }
            text += ": "
            if let sickResponse {
                sick[context.connectionID] = SickMark(ruleID: id, response: sickResponse)
                text += "sick connection \(context.connectionID): "
            }
            // A sequence reports the step it took; sickConnection and rateLimit keep their own names.
            var ruleType: String
            switch action {
            case .sickConnection, .rateLimit: ruleType = action.typeName
            default: ruleType = resolved.typeName
            }
            // A stream-rate refusal or GOAWAY names its rule's own type.
            if case .streamRateLimit = rules[index].rule.action { ruleType = "streamRateLimit" }
            return FaultDecision(
                ruleID: id, action: resolved, description: text + resolved.description,
                ruleActionType: ruleType)
        }
        return nil
    }

    /// The positions of the rules that may apply to `context`, in rule order: with the index,
    /// those filed under its token, topic and listener and the unindexed ones; else all.
    private func candidates(for context: FaultContext) -> FaultCandidates {
        guard usesIndex else { return FaultCandidates(all: rules.count) }
        var candidates = FaultCandidates()
        if !byToken.isEmpty, var token = context.token {
            if token.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { token = token.lowercased() }
            if let list = byToken[token] { candidates.add(list) }
        }
        if !byTopic.isEmpty, let topic = context.topic, let list = byTopic[topic] { candidates.add(list) }
        if !byListener.isEmpty, let list = byListener[context.listener] { candidates.add(list) }
        if !unindexed.isEmpty { candidates.add(unindexed) }
        return candidates
    }

    /// The action as the transport carries it out: a 410 without a timestamp gets `now`; a
    /// `sickConnection` becomes its `respond` and reports its answer in `sick`.
    static func resolve(_ action: FaultAction, now: Int64, sick: inout FaultResponse?) -> FaultAction {
        switch action {
        case .respond(var response):
            if response.status == 410 && response.timestamp == nil { response.timestamp = now }
            return .respond(response)
        case .sickConnection(var response):
            if response.status == 410 && response.timestamp == nil { response.timestamp = now }
            sick = response
            return .respond(response)
        case .delay(let ms, let then):
            return .delay(milliseconds: ms, then: then.map { resolve($0, now: now, sick: &sick) })
        default:
            return action
        }
    }
}
