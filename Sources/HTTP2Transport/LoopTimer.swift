import CLibevent
import Glibc

/// A one-shot timer on an `EventLoop`. It keeps itself alive until it fires or is cancelled.
public final class LoopTimer: @unchecked Sendable {
    private var event: OpaquePointer?
    private var task: (() -> Void)?
    private var keepAlive: LoopTimer?

    init(loop: EventLoop, seconds: Double, task: @escaping () -> Void) {
        self.task = task
        let me = Unmanaged.passUnretained(self).toOpaque()
        event = event_new(
            loop.base, -1, 0,
            { _, _, arg in
                Unmanaged<LoopTimer>.fromOpaque(arg!).takeUnretainedValue().fire()
            }, me)
        var tv = timeval(seconds: max(0, seconds))
        event_add(event, &tv)
        keepAlive = self
    }

    private func fire() {
        let task = self.task
        release()
        task?()
    }

    /// Stops the timer if it has not fired yet. Call on the loop's thread.
    public func cancel() { release() }

    private func release() {
        if let event { event_free(event) }
        event = nil
        task = nil
        keepAlive = nil
    }
}

extension timeval {
    /// A `timeval` for a duration in seconds.
    init(seconds: Double) {
        // Clamp: a timeval holds whole seconds in an Int, and callers pass configured values.
        let seconds = min(max(0, seconds.isFinite ? seconds : 0), 1e9)
        let whole = seconds.rounded(.down)
        self.init(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
    }
}
