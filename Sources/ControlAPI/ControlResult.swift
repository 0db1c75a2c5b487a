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
    /// A live stream (`GET /v1/deliveries/stream`, `GET /v1/events/stream`): the HTTP adapter
    /// starts a chunked answer of `stream.format.contentType` and writes what
    /// `ControlAPI.streamMessages(_:limit:)` returns whenever the stores change (README "Live stream").
    case stream(ControlStream)
}
