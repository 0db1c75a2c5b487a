/// What caused a connection event.
public enum ConnectionEventOrigin: Sendable, Hashable {
    /// A fault rule (`/v1/faults`); `action` is the rule's action type as its JSON names it,
    /// as in the delivery record's `fault.action` (a `sequence` step's own type).
    case fault(ruleID: String, action: String)
    /// A control API command: `POST /v1/connections/{id}/goaway`, `.../close`, `.../reset`.
    case command
    /// The listener's conditions (`PUT /v1/listeners/{name}/conditions`): handshake delay,
    /// silence, refusal.
    case listenerCondition
    /// `--idle-timeout`: no request for that long.
    case idleTimeout
    /// The `apple-observed` stream profile lowering or restoring MAX_CONCURRENT_STREAMS.
    case streamProfile
    /// A rejected client certificate (BadCertificate, BadCertificateEnvironment, expired):
    /// APNs answers the first request with GOAWAY (docs/field-cases.md C2).
    case certificate
    /// The server stopping (GOAWAY Shutdown to every connection).
    case shutdown
    /// A scenario acting on connections by itself (not on a push), e.g. `rolling-restart`;
    /// the event's `action` names it.
    case scenario(String)
    /// The connection's own life: `opened` and `closed`.
    case lifecycle

    /// The JSON `origin` and filter names, in documentation order.
    public static let names = [
        "fault", "command", "listenerCondition", "idleTimeout", "streamProfile", "certificate",
        "shutdown", "scenario", "lifecycle",
    ]

    /// This origin's name (one of `names`).
    public var name: String {
        switch self {
        case .fault: return "fault"
        case .command: return "command"
        case .listenerCondition: return "listenerCondition"
        case .idleTimeout: return "idleTimeout"
        case .streamProfile: return "streamProfile"
        case .certificate: return "certificate"
        case .shutdown: return "shutdown"
        case .scenario: return "scenario"
        case .lifecycle: return "lifecycle"
        }
    }

    /// The fault rule's id, for `.fault`.
    /// True for a fault rule's action.
    public var isFault: Bool {
        if case .fault = self { return true }
        return false
    }

    public var ruleID: String? {
        if case .fault(let id, _) = self { return id }
        return nil
    }

    /// The fault rule's action type, for `.fault`; the scenario's name, for `.scenario`.
    public var ruleAction: String? {
        switch self {
        case .fault(_, let action): return action
        case .scenario(let name): return name
        default: return nil
        }
    }

    /// The cause as a description prefix; empty for `.lifecycle`.
    var summary: String {
        switch self {
        case .fault(let id, let action): return "rule \(id) (\(action))"
        case .command: return "control API command"
        case .listenerCondition: return "listener condition"
        case .idleTimeout: return "idle timeout"
        case .streamProfile: return "apple-observed stream profile"
        case .certificate: return "certificate rejected"
        case .shutdown: return "shutdown"
        case .scenario(let name): return "scenario \(name)"
        case .lifecycle: return ""
        }
    }
}
