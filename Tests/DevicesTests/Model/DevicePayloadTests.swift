import APNsCore
import Devices
import XCTest

/// What the device reads from a body (docs/device-model.md §3) and from the gateway's verdict (§2).
final class DevicePayloadTests: XCTestCase {
    func payload(_ json: String) -> DevicePayload { DevicePayload(body: Array(json.utf8)) }

    func testValuesTable() {
        let rows: [(String, String, line: UInt)] = [
            (#"{"aps":{"alert":"hi"}}"#, "text", #line),
            (#"{"aps":{"alert":""}}"#, "", #line),
            (#"{"aps":{"alert":{"title":"T"}}}"#, "text", #line),
            (#"{"aps":{"alert":{"loc-key":"K"}}}"#, "text", #line),
            (#"{"aps":{"alert":{"launch-image":"x"}}}"#, "", #line),
            (#"{"aps":{"badge":3,"sound":"default"}}"#, "badge=3 sound", #line),
            (#"{"aps":{"badge":"3","sound":""}}"#, "", #line),
            (#"{"aps":{"sound":{"critical":1,"name":"a"}}}"#, "sound", #line),
            (#"{"aps":{"content-available":1,"mutable-content":1}}"#, "content-available mutable", #line),
            (#"{"aps":{"content-available":true,"mutable-content":true}}"#, "", #line),
            (#"{"aps":{"category":"MEETING"}}"#, "category=MEETING", #line),
            (#"[1]"#, "", #line),
            (#"{"aps":"hi"}"#, "", #line),
        ]
        for (json, expected, line) in rows {
            let p = payload(json)
            var words: [String] = []
            if p.alertHasText { words.append("text") }
            if let badge = p.badge { words.append("badge=\(badge)") }
            if p.hasSound { words.append("sound") }
            if p.contentAvailable { words.append("content-available") }
            if p.mutableContent { words.append("mutable") }
            if let category = p.category { words.append("category=\(category)") }
            XCTAssertEqual(words.joined(separator: " "), expected, json, line: line)
        }
    }

    /// The payload read from the validation's facts (the push path) is the payload parsed anew,
    /// for every body of the values table and more.
    func testValuesFromTheValidationsFactsAreThoseParsed() {
        let bodies = [
            #"{"aps":{"alert":"hi"}}"#, #"{"aps":{"alert":""}}"#, #"{"aps":{"alert":{"title":"T"}}}"#,
            #"{"aps":{"alert":{"launch-image":"x"}}}"#, #"{"aps":{"badge":3,"sound":"default"}}"#,
            #"{"aps":{"badge":2.5}}"#, #"{"aps":{"badge":"3","sound":""}}"#,
            #"{"aps":{"sound":{"critical":1,"name":"a"}}}"#,
            #"{"aps":{"content-available":1,"mutable-content":1}}"#, #"{"aps":{"content-available":1}}"#,
            #"{"aps":{"content-available":true,"mutable-content":true}}"#, #"{"aps":{"category":"MEETING"}}"#,
            #"{"aps":"hi"}"#, #"{}"#, #"{"x":{"aps":{"alert":"no"}}}"#,
            #"{"aps":{"alert":"first"},"aps":{"badge":1}}"#,
        ]
        for json in bodies {
            let body = Array(json.utf8)
            guard case .object(let facts) = PayloadInspector.inspect(body) else { return XCTFail(json) }
            XCTAssertEqual(DevicePayload(body: body, facts: facts), DevicePayload(body: body), json)
        }
    }

    /// With the facts in hand the body is parsed only when `aps` holds a value the facts do not:
    /// a background push's body is never read (here, bytes that are no JSON at all).
    func testABackgroundPushsBodyIsNotParsedAgain() {
        guard case .object(let background) = PayloadInspector.inspect(Array(#"{"aps":{"content-available":1}}"#.utf8))
        else { return XCTFail() }
        let read = DevicePayload(body: Array("not parsed".utf8), facts: background)
        XCTAssertTrue(read.contentAvailable)
        XCTAssertFalse(read.isVisible)
        XCTAssertEqual(read.facts, background)
        guard case .object(let alert) = PayloadInspector.inspect(Array(#"{"aps":{"alert":"hi"}}"#.utf8))
        else { return XCTFail() }
        XCTAssertTrue(DevicePayload(body: Array(#"{"aps":{"alert":"hi"}}"#.utf8), facts: alert).alertHasText)
    }

    func testPushReadsTheVerdict() {
        let verdict = ValidationResult(pushType: .background, priority: 5, expiration: 0, collapseID: "c")
        let push = DevicePush(id: 9, verdict: verdict, body: Array(#"{"aps":{"content-available":1}}"#.utf8))
        XCTAssertEqual(push.pushType, .background)
        XCTAssertEqual(push.priority, 5)
        XCTAssertEqual(push.expiration, 0)
        XCTAssertEqual(push.collapseID, "c")
        XCTAssertTrue(push.payload.contentAvailable)
        XCTAssertTrue(push.isOneAttempt(at: 0))
        let plain = DevicePush(id: 1, verdict: ValidationResult(), body: [])
        XCTAssertEqual(plain.pushType, .alert)
        XCTAssertEqual(plain.priority, 10)
        XCTAssertFalse(plain.isOneAttempt(at: 1e12))
    }
}
