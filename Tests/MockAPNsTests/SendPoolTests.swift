import Foundation
import Synchronization
import XCTest

@testable import MockAPNs

/// `SendPool`: `POST /v1/send`'s own threads, at most `maxRunning` jobs at once and `maxQueued`
/// waiting, the rest refused at once.
final class SendPoolTests: XCTestCase {
    func testAtMostMaxRunningRunAndMaxQueuedWaitTheRestAreRefused() {
        let pool = SendPool(maxRunning: 2, maxQueued: 3)
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let ran = Mutex(0)
        let peak = Mutex((now: 0, most: 0))
        let done = DispatchGroup()
        var accepted = 0
        for _ in 0..<8 {
            done.enter()
            let taken = pool.submit {
                peak.withLock {
                    $0.now += 1
                    $0.most = max($0.most, $0.now)
                }
                started.signal()
                gate.wait()
                peak.withLock { $0.now -= 1 }
                ran.withLock { $0 += 1 }
                done.leave()
            }
            if taken { accepted += 1 } else { done.leave() }
        }
        XCTAssertEqual(accepted, 5, "2 running and 3 queued; 3 refused")
        for _ in 0..<2 { XCTAssertEqual(started.wait(timeout: .now() + 5), .success) }
        XCTAssertEqual(pool.load.running, 2)
        XCTAssertEqual(pool.load.queued, 3)
        XCTAssertFalse(pool.submit {}, "still full")
        for _ in 0..<5 { gate.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(ran.withLock { $0 }, 5)
        XCTAssertEqual(peak.withLock { $0.most }, 2, "never more than maxRunning at once")
        // Freed: a job is taken again.
        let again = DispatchSemaphore(value: 0)
        XCTAssertTrue(pool.submit { again.signal() })
        XCTAssertEqual(again.wait(timeout: .now() + 5), .success)
    }
}
