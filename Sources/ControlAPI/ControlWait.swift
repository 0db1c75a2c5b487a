import Recording

/// A long poll the control API has not answered yet (`ControlResult.wait`): deliveries, connection
/// events or a verification. The HTTP adapter keeps it and calls `ControlAPI.waitResult(_:timedOut:)`.
public enum ControlWait: Sendable {
    /// `GET /v1/deliveries/wait`.
    case deliveries(StoreWait<DeliveryFilter>)
    /// `GET /v1/events/wait`.
    case events(StoreWait<ConnectionEventFilter>)
    /// `POST /v1/verify` with `withinMs`.
    case verification(VerificationWait)
    /// `POST /v1/send`: the listener's answer, filled in by the sender's thread.
    case send(SendTicket)

    /// How long to wait, in milliseconds, from when `handle` returned the wait.
    public var timeoutMilliseconds: Int {
        switch self {
        case .deliveries(let wait): return wait.timeoutMilliseconds
        case .events(let wait): return wait.timeoutMilliseconds
        case .verification(let wait): return wait.timeoutMilliseconds
        case .send: return SendTicket.timeoutMilliseconds
        }
    }

    /// Marks a verification as answered because its gateway was deleted before its window ended
    /// (`VerificationWait.gatewayDeleted`); other waits are left as they are.
    public mutating func markGatewayDeleted() {
        guard case .verification(var wait) = self else { return }
        wait.gatewayDeleted = true
        self = .verification(wait)
    }

    /// True when the next look has work to do even if no store changed (a verification whose
    /// first look over a full store is spread over ticks): the HTTP adapter must not skip it.
    public var needsAnotherLook: Bool {
        if case .verification(let wait) = self { return !wait.caughtUp }
        return false
    }
}
