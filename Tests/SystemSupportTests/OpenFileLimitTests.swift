import Glibc
import SystemSupport
import XCTest

final class OpenFileLimitTests: XCTestCase {
    func testRaisingTakesTheSoftLimitToTheHardLimit() throws {
        var limits = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits), 0)
        let hard = limits.rlim_max == rlim_t.max ? OpenFileLimit.ceiling : Int(limits.rlim_max)
        // A soft limit below the hard one, whatever the hard limit is (300 where there is room).
        let soft = min(300, hard - 1)
        XCTAssertGreaterThan(soft, 0, "a hard limit of 1 leaves nothing to raise")
        var lowered = limits
        lowered.rlim_cur = rlim_t(soft)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered), 0)
        XCTAssertEqual(OpenFileLimit.current, soft)
        let raised = OpenFileLimit.raiseToHard()
        XCTAssertEqual(raised.before, soft)
        XCTAssertEqual(raised.after, hard)
        XCTAssertEqual(OpenFileLimit.current, hard)
    }

    func testOpenCountFollowsTheDescriptorsHeld() {
        let before = OpenFileLimit.openCount()
        XCTAssertGreaterThan(before, 2, "at least standard input, output and error")
        let fds = (0..<5).map { _ in open("/dev/null", O_RDONLY) }
        XCTAssertEqual(OpenFileLimit.openCount(), before + 5)
        for fd in fds { close(fd) }
        XCTAssertEqual(OpenFileLimit.openCount(), before)
    }

    func testTheReserveIsFivePercentAndAtLeast64() {
        XCTAssertEqual(OpenFileLimit.reserve(under: 256), 64)
        XCTAssertEqual(OpenFileLimit.reserve(under: 1024), 64)
        XCTAssertEqual(OpenFileLimit.reserve(under: 65_536), 3276)
        XCTAssertFalse(OpenFileLimit.leavesOnlyTheReserve(open: 191, limit: 256))
        XCTAssertTrue(OpenFileLimit.leavesOnlyTheReserve(open: 192, limit: 256))
        XCTAssertTrue(OpenFileLimit.leavesOnlyTheReserve(open: 300, limit: 256))
    }
}
