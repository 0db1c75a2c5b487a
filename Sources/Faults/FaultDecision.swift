/// What the fault engine decided for one push: which rule, and the action to carry out.
public struct FaultDecision: Sendable, Hashable {
    /// The rule that applied.
    public var ruleID: String
    /// The action for this push, resolved: never `.sequence` (the step is chosen), `.rateLimit`
    /// or `.sickConnection` (both become `.respond`); a 410 `respond` always has its
    /// `timestamp` (the request's time when the rule gave none). A `delay` keeps its `then`.
    public var action: FaultAction
    /// For the delivery record and logs, e.g. `rule f2: respond 503 ServiceUnavailable`.
    public var description: String
    /// The rule's own action type as its JSON names it (`sickConnection`, `rateLimit`, or the
    /// sequence step's type), for the record: `action` may be its resolved `respond`.
    public var ruleActionType: String

    public init(ruleID: String, action: FaultAction, description: String, ruleActionType: String? = nil) {
        self.ruleID = ruleID
        self.action = action
        self.description = description
        self.ruleActionType = ruleActionType ?? action.typeName
    }
}
