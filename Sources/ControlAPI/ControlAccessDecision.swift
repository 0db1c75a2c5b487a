import HTTPFields
import JSONSupport

/// What `ControlAccessPolicy.decide(_:)` made of a request before any endpoint sees it.
public enum ControlAccessDecision: Sendable, Equatable {
    /// Answer this and serve nothing: a refusal (401, 403, 415, all `{"error": …}`), or the 204
    /// answer to a CORS preflight from a configured origin.
    case answer(ControlResponse)
    /// Serve the request, adding these headers to its answer (the CORS headers for a configured
    /// origin; none otherwise).
    case serve(extraHeaders: [HeaderField])
}
