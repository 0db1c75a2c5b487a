import APNsCore
import Faults
import Recording

/// Everything `Gateway.handle` decided for one push, in one value: the caller carries it out
/// and derives nothing again.
///
/// - the stream's answer (`response`, sent when `plan.stream` is `.answer`) and what happens to
///   the stream and to the connection, and when (`plan`: a fault's or a rejected credential's);
/// - the stored record (`seq`; its status is the one answered, 0 when the stream gets none);
/// - whether the push was accepted, which the credential check was told (token binding,
///   `CredentialChecker.settle`) and which moved the stream profile (`streamLimitChange`);
/// - the connection-ending reason of a rejected credential (`connectionEndReason`).
///
/// Issue 13 (a record that says "never answered"): a plan whose stream is answered later
/// (`plan.delayMilliseconds`) or never (`.leaveOpen`) names its record by `seq`, so whoever sees
/// the stream end without HEADERS can correct that record.
///
/// Made by `Gateway.handle` alone, with the memberwise initializer: with an explicit one the
/// optimizer built each decision twice (a copy and a destroy of it per push, seen with
/// bench/callgrind.sh). `ActionPlan` is made the same way for the same reason.
public struct PushDecision: Sendable {
    /// The response the stream gets when `plan.stream` is `.answer` (a fault's own when it chose
    /// one); otherwise not sent.
    public var response: PushResponse
    /// What is done to the stream and the connection, and when (`ActionPlan.normal` without a
    /// fault or a connection-ending credential).
    public var plan: ActionPlan
    /// The stored record's sequence number.
    public var seq: UInt64
    /// True when the push was answered 200 by the gateway's own answer: a fault that replaces
    /// the answer or leaves the stream unanswered makes it not accepted. The credential check
    /// has been told (`CredentialChecker.settle(accepted:)`).
    public var accepted: Bool
    /// The fault rule that applied, if one did (its id and action type name the connection
    /// events its plan causes).
    public var fault: FaultDecision?
    /// Set when the credential check ends the whole connection with this reason (GOAWAY
    /// instead of a stream answer: BadCertificate, BadCertificateEnvironment; docs/field-cases.md C2).
    public var connectionEndReason: Reason?
    /// The MAX_CONCURRENT_STREAMS the `apple-observed` stream profile announces after this push
    /// (1 after a rejection, the listener's after an acceptance), nil for no change. Carried out
    /// before `plan.connection`.
    public var streamLimitChange: UInt32?
    /// Set when the answer is held (`plan.delayMilliseconds`): the record is pending (no status,
    /// no `unanswered` cause) and says this once the response HEADERS is serialized
    /// (`DeliveryStore.markAnswered`); nil otherwise, the record already saying its answer.
    public var pendingAnswer: PendingAnswer?

    /// What caused `plan.connection`, for its connection event: the fault rule, else the rejected
    /// certificate.
    public var connectionOrigin: ConnectionEventOrigin {
        if let fault { return .fault(ruleID: fault.ruleID, action: fault.ruleActionType) }
        return .certificate
    }
}
