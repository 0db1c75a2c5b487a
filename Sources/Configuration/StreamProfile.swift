/// How the listeners manage HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS` (docs/apns-behaviour.md §6, §9).
public enum StreamProfile: String, Sendable, Equatable, CaseIterable {
    /// Default. Every connection gets `maxConcurrentStreams` from the start and keeps it.
    case fixed
    /// As observed on APNs: token-authenticated connections start at 1, rise to
    /// `maxConcurrentStreams` after the first accepted push, drop to 1 after a rejection and are
    /// restored by the next success.
    case appleObserved = "apple-observed"
}
