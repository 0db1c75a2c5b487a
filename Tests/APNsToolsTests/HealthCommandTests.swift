import APNsTools
import Foundation
import HTTP2Client
import Synchronization
import XCTest

/// `mock-apns health`: exit 0 for a healthy answer, 1 otherwise, 2 on usage errors.
final class HealthCommandTests: XCTestCase {
    private func run(
        _ arguments: [String], _ answer: Result<(status: Int, body: [UInt8]), ExportAPNsCommand.FetchError>
    ) -> (Int32, [String], [String], [String]) {
        let lines = ExportAPNsCommandTests.Lines()
        let asked = Mutex<[String]>([])
        let code = HealthCommand.run(arguments, output: lines.output) { url in
            asked.withLock { $0.append(url.absoluteString) }
            return answer
        }
        return (code, lines.out.withLock { $0 }, lines.err.withLock { $0 }, asked.withLock { $0 })
    }

    func testHealthyAnswerExitsZero() {
        let body = Array(#"{"status":"ok","version":"0.1.0","uptimeMs":12345,"listeners":[{},{}]}"#.utf8)
        let (code, out, err, asked) = run(["--control", "http://127.0.0.1:9000/"], .success((200, body)))
        XCTAssertEqual(code, 0)
        XCTAssertEqual(asked, ["http://127.0.0.1:9000/v1/health"])
        XCTAssertEqual(out, ["mock-apns health: healthy: MockAPNs 0.1.0, up 12 s, 2 listeners"])
        XCTAssertEqual(err, [])
        XCTAssertEqual(run([], .success((200, body))).3, ["http://127.0.0.1:8197/v1/health"])
    }

    func testUnhealthyAnswersExitOne() {
        let url = "http://127.0.0.1:8197/v1/health"
        let rows: [(Result<(status: Int, body: [UInt8]), ExportAPNsCommand.FetchError>, String)] = [
            (.failure(.init("Connection refused")), "cannot reach \(url): Connection refused"),
            (.success((503, Array(#"{"status":"stopping"}"#.utf8))), #"\#(url) answered 503: {"status":"stopping"}"#),
            (.success((200, Array(#"{"status":"degraded"}"#.utf8))), #"\#(url) answered 200: {"status":"degraded"}"#),
            (.success((200, Array("<html>".utf8))), "\(url) answered 200: <html>"),
        ]
        for (answer, message) in rows {
            let (code, out, err, _) = run([], answer)
            XCTAssertEqual(code, 1, message)
            XCTAssertEqual(out, [])
            XCTAssertEqual(err, ["mock-apns health: unhealthy: " + message])
        }
    }

    func testUsageErrorsExitTwo() {
        XCTAssertEqual(run(["--control", "ftp://x"], .success((200, []))).0, 2)
        XCTAssertEqual(run(["--control"], .success((200, []))).0, 2)
        XCTAssertEqual(run(["extra"], .success((200, []))).0, 2)
        XCTAssertEqual(run(["--help"], .success((200, []))).0, 0)
    }
}
