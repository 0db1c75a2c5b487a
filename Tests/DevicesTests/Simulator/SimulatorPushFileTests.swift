import APNsCore
import Devices
import Foundation
import JSONInput
import XCTest

/// The Simulator's `.apns` file (docs/device-model.md §6).
final class SimulatorPushFileTests: XCTestCase {
    func testExportTable() throws {
        let file = try SimulatorPushFile.make(
            payload: Array(#"{"aps":{"alert":{"title":"T","body":"B"},"badge":1},"custom":{"id":7}}"#.utf8),
            bundleID: "com.example.app", pushType: .alert)
        let expected =
            #"{"Simulator Target Bundle":"com.example.app","aps":{"alert":{"body":"B","title":"T"},"badge":1},"custom":{"id":7}}"#
        XCTAssertEqual(try JSONNode(decoding: file), try JSONNode(decoding: Array(expected.utf8)))
        XCTAssertEqual(file.count, expected.utf8.count, "no insignificant whitespace")
        XCTAssertEqual(SimulatorPushFile.problems(in: file), [])
        let background = try SimulatorPushFile.make(
            payload: Array(#"{"aps":{"content-available":1}}"#.utf8), bundleID: "b", pushType: .background)
        XCTAssertEqual(SimulatorPushFile.problems(in: background), [])

        let long = String(repeating: "x", count: 4060)
        let refusals: [(String, PushType, String, line: UInt)] = [
            (#"{"aps":{"alert":"hi"}}"#, .voip, "pushType", #line),
            (#"{"aps":{"alert":"hi"}}"#, .liveactivity, "pushType", #line),
            (#"{"data":1}"#, .alert, "payload", #line),
            (#"{"aps":"hi"}"#, .alert, "payload", #line),
            (#"[1]"#, .alert, "payload", #line),
            (#"{"aps":{"alert":"\#(long)"}}"#, .alert, "", #line),
        ]
        for (payload, type, path, line) in refusals {
            XCTAssertThrowsError(
                try SimulatorPushFile.make(payload: Array(payload.utf8), bundleID: "com.example.app", pushType: type),
                line: line
            ) { XCTAssertEqual(($0 as? InputError)?.path, path, line: line) }
        }
    }

    func testCheckTable() {
        let big = #"{"Simulator Target Bundle":"b","aps":{"alert":"\#(String(repeating: "x", count: 4096))"}}"#
        let rows: [(String, Bool, [String], line: UInt)] = [
            (#"{"Simulator Target Bundle":"b","aps":{}}"#, true, [], #line),
            (#"{"aps":{}}"#, true, [#"no "Simulator Target Bundle" string"#], #line),
            (#"{"aps":{}}"#, false, [], #line),
            (#"{"Simulator Target Bundle":"","aps":{}}"#, true, [#"no "Simulator Target Bundle" string"#], #line),
            (#"{"Simulator Target Bundle":"b"}"#, true, ["no aps object"], #line),
            (#"[{"aps":{}}]"#, true, ["not a JSON object at the top level"], #line),
            (big, true, ["\(big.utf8.count) bytes, over 4096"], #line),
        ]
        for (file, needsBundle, problems, line) in rows {
            XCTAssertEqual(
                SimulatorPushFile.problems(in: Array(file.utf8), needsBundle: needsBundle), problems, file, line: line)
        }
    }
}
