import Foundation
import Synchronization

/// The time provider-token checks use: the real clock plus an adjustable offset, so a test can
/// make a token expire (or come from the future) without waiting (configuration
/// `clockOffsetSeconds`, control API `PUT /v1/clock`).
public final class ServerClock: Sendable {
    private let offset: Mutex<Double>

    /// - Parameter offsetSeconds: added to the real time, in seconds (may be negative).
    public init(offsetSeconds: Double = 0) { offset = Mutex(offsetSeconds) }

    /// The offset in seconds.
    public var offsetSeconds: Double {
        get { offset.withLock { $0 } }
        set { offset.withLock { $0 = newValue } }
    }

    /// Now, as seen by credential checks: seconds since the Unix epoch plus the offset.
    public func now() -> Double { Date().timeIntervalSince1970 + offsetSeconds }
}
