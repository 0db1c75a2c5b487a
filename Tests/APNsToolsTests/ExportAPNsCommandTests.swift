import APNsTools
import Foundation
import HTTP2Client
import Synchronization
import XCTest

/// `mock-apns export-apns` (docs/device-model.md §7): the URL it asks, the file it writes, and
/// its refusals.
final class ExportAPNsCommandTests: XCTestCase {
    final class Lines: Sendable {
        let out = Mutex<[String]>([]), err = Mutex<[String]>([])
        var output: SendOutput {
            SendOutput(
                standardOutput: { line in self.out.withLock { $0.append(line) } },
                standardError: { line in self.err.withLock { $0.append(line) } })
        }
    }

    static let file = Array(#"{"Simulator Target Bundle":"com.example.app","aps":{"alert":"hi"}}"#.utf8)

    func run(_ arguments: [String], status: Int = 200, body: [UInt8] = file) -> (Int32, Lines, [URL]) {
        let lines = Lines()
        let asked = Mutex<[URL]>([])
        let code = ExportAPNsCommand.run(arguments, output: lines.output) { url in
            asked.withLock { $0.append(url) }
            return .success((status, body))
        }
        return (code, lines, asked.withLock { $0 })
    }

    func testWritesTheFileTheServerGives() throws {
        let (code, lines, asked) = run(["7", "--control", "http://127.0.0.1:9000"])
        XCTAssertEqual(code, 0)
        XCTAssertEqual(asked.map(\.absoluteString), ["http://127.0.0.1:9000/v1/deliveries/7/apns"])
        XCTAssertEqual(lines.out.withLock { $0 }, [String(decoding: Self.file, as: UTF8.self)])
        let path = NSTemporaryDirectory() + "export-\(UUID().uuidString).apns"
        XCTAssertEqual(run(["7", "--output", path]).0, 0)
        XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), Self.file)
        XCTAssertEqual(run(["7"]).2.map(\.absoluteString), ["http://127.0.0.1:8197/v1/deliveries/7/apns"])
    }

    func testRefusals() {
        let rows: [([String], Int, [UInt8], Int32, String)] = [
            ([], 200, Self.file, 2, "expected one SEQ"),
            (["x"], 200, Self.file, 2, "expected one SEQ"),
            (["1", "--colour"], 200, Self.file, 2, "unknown option '--colour'"),
            (["1", "--control", "ftp://x"], 200, Self.file, 2, "--control: expected a URL"),
            (
                ["1"], 409, Array(#"{"error":"delivery 1: pushType: simctl push takes only"}"#.utf8), 1,
                "answered 409: delivery 1"
            ),
            (["1"], 200, Array(#"{"aps":{}}"#.utf8), 1, #"no "Simulator Target Bundle" string"#),
        ]
        for (arguments, status, body, code, text) in rows {
            let (got, lines, _) = run(arguments, status: status, body: body)
            XCTAssertEqual(got, code, "\(arguments)")
            let errors = lines.err.withLock { $0 }.joined()
            XCTAssertTrue(errors.contains(text), "\(arguments): \(errors) lacks \(text)")
        }
        let lines = Lines()
        let code = ExportAPNsCommand.run(["1"], output: lines.output) { _ in .failure(.init("connection refused")) }
        XCTAssertEqual(code, 1)
        XCTAssertTrue(
            lines.err.withLock { $0 }.joined().contains("cannot reach http://127.0.0.1:8197: connection refused"))
    }
}
