import Foundation
import XCTest

@testable import Faults

/// `RollingRestartRun`: in progress until every connection's moment has come.
final class RollingRestartRunTests: XCTestCase {
    func testInProgressUntilEveryConnectionIsDone() {
        let restart = RollingRestart(windowMilliseconds: 1000, drainMilliseconds: 50, seed: 3)
        var run = RollingRestartRun(restart: restart, connectionIDs: [1, 4])
        XCTAssertTrue(run.inProgress)
        run.markDone(4)
        run.markDone(9)  // not one of its connections: ignored
        XCTAssertTrue(run.inProgress)
        XCTAssertEqual(run.done, [4])
        run.markDone(1)
        XCTAssertFalse(run.inProgress)
        XCTAssertFalse(RollingRestartRun(restart: restart, connectionIDs: []).inProgress, "nothing to send away")
    }

    func testStatusGivesEachConnectionItsMomentAndWireNames() throws {
        let restart = RollingRestart(windowMilliseconds: 1000, drainMilliseconds: 50, seed: 3)
        var run = RollingRestartRun(restart: restart, connectionIDs: [1, 4])
        run.markDone(1)
        let status = run.status(elapsedMilliseconds: 640)
        XCTAssertEqual(
            status.connections,
            [
                .init(id: 1, goawayAfterMilliseconds: restart.delayMilliseconds(forConnection: 1), done: true),
                .init(id: 4, goawayAfterMilliseconds: restart.delayMilliseconds(forConnection: 4), done: false),
            ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(status), as: UTF8.self)
        XCTAssertTrue(
            json.hasPrefix(#"{"connections":[{"done":true,"goawayAfterMs":"#), json)
        XCTAssertTrue(json.hasSuffix(#""drainMs":50,"elapsedMs":640,"seed":3,"windowMs":1000}"#), json)
    }
}
