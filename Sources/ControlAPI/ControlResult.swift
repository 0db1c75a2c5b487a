import JSONSupport

/// What `ControlAPI.handle` decided for one request.
public enum ControlResult: Sendable {
    /// Answer now.
    case response(ControlResponse)
    /// A long poll (`GET /v1/deliveries/wait`, `GET /v1/events/wait`) that is not yet
    /// complete: the HTTP adapter keeps the request open and calls `ControlAPI.waitResult(_:timedOut:)` every few milliseconds
    /// until it returns an answer, passing `timedOut: true` once `timeoutMilliseconds` have
    /// passed since `handle` returned.
    case wait(ControlWait)
}
