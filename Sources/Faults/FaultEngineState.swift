import JSONInput
import JSONSupport

/// The fault engine's mutable state, guarded by its mutex: the ordered rules, the id counter
/// and the sick connections.
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

    /// What keeps the engine armed: rules not yet spent, and sick connections.
    var armedCount: Int { rules.reduce(0) { $1.spent ? $0 : $0 + 1 } + sick.count }

    /// Validates `rule`, then assigns it an id (when it has none) and a seed (when it draws and
    /// has none); `append` stores it. `taken` holds the ids of rules added in the same batch;
    /// `path` prefixes error fields (e.g. `[1]`).
    mutating func prepare(_ rule: FaultRule, taken: Set<String>, path: String) throws(FaultRuleError) -> FaultRule {
        try rule.validate(at: path)
        var rule = rule
        rule.match.normalize()
        if let id = rule.id {
            guard !taken.contains(id), !rules.contains(where: { $0.id == id }) else {
                throw FaultRuleError(
                    field: FaultRuleError.join(path, "id"), message: "\(InputError.quoted(id)) is already in use")
            }
        } else {
            var id: String
            repeat {
                id = "f\(nextNumber)"
                nextNumber += 1
            } while taken.contains(id) || rules.contains(where: { $0.id == id })
            rule.id = id
        }
        // Below 2^53 so the seeds shown in listings survive JavaScript's JSON numbers.
        if rule.match.draws && rule.match.seed == nil { rule.match.seed = UInt64.random(in: 0..<(1 << 53)) }
        rule.action = rule.action.seedingLatencies { UInt64.random(in: 0..<(1 << 53)) }
        return rule
    }

    /// - Parameter now: milliseconds since the Unix epoch (a `probabilityRamp` starts then).
    mutating func append(_ rule: FaultRule, now: Int64) { rules.append(FaultRuleState(rule: rule, addedAt: now)) }

    mutating func remove(id: String) -> Bool {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return false }
        rules.remove(at: index)
        sick = sick.filter { $0.value.ruleID != id }
        return true
    }

    mutating func removeAll() {
        rules.removeAll()
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
            if let index = rules.firstIndex(where: { $0.id == mark.ruleID }) { rules[index].fired += 1 }
            return FaultDecision(
                ruleID: mark.ruleID, action: .respond(mark.response),
                description:
                    "rule \(mark.ruleID): sick connection \(context.connectionID): respond \(mark.response.summary)",
                ruleActionType: "sickConnection")
        }
        var payload = FaultPayload(context.payload)
        for index in rules.indices {
            guard case .fault(let action, let label) = rules[index].evaluate(context, payload: &payload) else {
                continue
            }
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
