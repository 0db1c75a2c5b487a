import Foundation

/// The threads `POST /v1/send`'s pushes run on (`ListenerPushSender`, docs/console.md §5): at
/// most `maxRunning` at once, each blocking on one HTTP/2 exchange, and at most `maxQueued`
/// more waiting for a free thread; a job beyond that is refused at once (`submit` is false),
/// which the control API answers 429. A pool of its own, so that sends held by a `delay` fault
/// wait only for each other, never for Dispatch's shared threads (where 100 sends held 15 s
/// made later ones time out). Threads start as jobs come, up to `maxRunning`, and then stay.
/// Thread-safe.
final class SendPool: @unchecked Sendable {
    /// The most jobs running at once.
    let maxRunning: Int
    /// The most jobs waiting for a thread.
    let maxQueued: Int
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var threads = 0
    private var idle = 0
    private var running = 0

    /// The pool every server's senders share: 32 sends at once, 32 more queued.
    static let shared = SendPool(maxRunning: 32, maxQueued: 32)

    /// A pool of at most `maxRunning` (at least 1) threads and `maxQueued` (at least 0) waiting jobs.
    init(maxRunning: Int, maxQueued: Int) {
        self.maxRunning = max(1, maxRunning)
        self.maxQueued = max(0, maxQueued)
    }

    /// Jobs running and waiting now.
    var load: (running: Int, queued: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (running, queue.count)
    }

    /// Runs `job` on one of the pool's threads, now or once one is free; false (and `job` never
    /// runs) when `maxRunning` jobs run and `maxQueued` wait already.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard running + queue.count < maxRunning + maxQueued else { return false }
        queue.append(job)
        if idle > 0 {
            condition.signal()
        } else if threads < maxRunning {
            threads += 1
            let thread = Thread { [self] in work() }
            thread.name = "mock-apns.console-send"
            thread.start()
        }
        return true
    }

    /// A thread's life: the next job, run, forever.
    private func work() {
        while true {
            condition.lock()
            while queue.isEmpty {
                idle += 1
                condition.wait()
                idle -= 1
            }
            let job = queue.removeFirst()
            running += 1
            condition.unlock()
            job()
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}
