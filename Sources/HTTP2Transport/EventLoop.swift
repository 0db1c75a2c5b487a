import CLibevent
import Glibc
import Synchronization

/// One libevent `event_base` driven by one thread. Everything registered on a loop runs on its
/// thread; other threads hand work over with `execute(_:)`.
public final class EventLoop: @unchecked Sendable {
    /// `event_base *`. Touch only on the loop's thread (libevent is told to lock, but our own
    /// per-connection state is not).
    let base: OpaquePointer
    private let pending = Mutex<[@Sendable () -> Void]>([])
    private var wakeEvent: OpaquePointer?
    private let finished = Mutex<Bool>(false)
    /// A read buffer shared by every connection of this loop: one read runs at a time.
    let readBuffer: UnsafeMutableRawPointer
    static let readBufferSize = 64 * 1024

    /// Makes libevent thread-aware; must run before the first `event_base_new`.
    private static let threading: Void = {
        _ = evthread_use_pthreads()
        signal(SIGPIPE, SIG_IGN)
    }()

    /// Creates an idle loop. Call `start(name:)` (own thread) or `run()` (current thread).
    public init() {
        _ = EventLoop.threading
        guard let base = event_base_new() else { fatalError("event_base_new failed: out of memory") }
        self.base = base
        readBuffer = UnsafeMutableRawPointer.allocate(byteCount: EventLoop.readBufferSize, alignment: 16)
        let me = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(
            base, -1, Int16(EV_PERSIST),
            { _, _, arg in
                Unmanaged<EventLoop>.fromOpaque(arg!).takeUnretainedValue().drainPending()
            }, me)
        event_add(wakeEvent, nil)
    }

    deinit {
        if let wakeEvent { event_free(wakeEvent) }
        event_base_free(base)
        readBuffer.deallocate()
    }

    /// Runs the loop on a new thread.
    public func start() {
        let box = Unmanaged.passRetained(ThreadStart(loop: self))
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { arg in
                let start = Unmanaged<ThreadStart>.fromOpaque(arg!).takeRetainedValue()
                start.loop.run()
                return nil
            }, box.toOpaque())
        precondition(rc == 0, "pthread_create failed: \(rc)")
        pthread_detach(thread)
    }

    /// Runs the loop on the calling thread until `stop()`.
    public func run() {
        event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
        drainPending()
        finished.withLock { $0 = true }
    }

    /// Runs `task` on the loop's thread, soon. Safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(task) }
        event_active(wakeEvent, EV_READ, 0)
    }

    private func drainPending() {
        let tasks = pending.withLock { tasks -> [@Sendable () -> Void] in
            let taken = tasks
            tasks.removeAll(keepingCapacity: true)
            return taken
        }
        for task in tasks { task() }
    }

    /// Ends the loop after the tasks already handed over have run. Safe from any thread.
    public func stop() {
        execute { [self] in _ = event_base_loopbreak(self.base) }
    }

    /// Blocks until the loop has ended after `stop()`.
    public func waitUntilFinished() {
        while !finished.withLock({ $0 }) { usleep(1000) }
    }

    /// Runs `task` once, `seconds` from now, on the loop's thread. Call on the loop's thread.
    /// - Returns: the timer, which `cancel()` stops before it fires.
    @discardableResult
    public func schedule(after seconds: Double, _ task: @escaping () -> Void) -> LoopTimer {
        LoopTimer(loop: self, seconds: seconds, task: task)
    }
}

/// What a new loop thread needs, passed through `pthread_create`'s argument.
private final class ThreadStart {
    let loop: EventLoop
    init(loop: EventLoop) { self.loop = loop }
}
