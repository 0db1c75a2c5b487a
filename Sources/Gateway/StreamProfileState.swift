/// The `apple-observed` stream profile on one connection (docs/apns-behaviour.md §4, §6): a
/// token connection starts at MAX_CONCURRENT_STREAMS 1 until a push is accepted; after a
/// rejection the limit drops to 1, and the next accepted push restores the listener's
/// (observed: openradar 27870881, pushy #732).
public struct StreamProfileState: Sendable, Hashable {
    /// The listener's MAX_CONCURRENT_STREAMS, which an accepted push restores.
    public var listenerLimit: UInt32
    /// True while the limit is lowered to 1.
    public var lowered: Bool

    public init(listenerLimit: UInt32, lowered: Bool) {
        self.listenerLimit = listenerLimit
        self.lowered = lowered
    }

    /// The MAX_CONCURRENT_STREAMS a push that was (or was not) `accepted` announces: 1 after the
    /// first rejection, `listenerLimit` after the first acceptance while lowered, nil for no
    /// change. Moves `lowered` on.
    public mutating func change(accepted: Bool) -> UInt32? {
        if !accepted && !lowered {
            lowered = true
            return 1
        }
        if accepted && lowered {
            lowered = false
            return listenerLimit
        }
        return nil
    }
}
