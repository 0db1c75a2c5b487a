import APNsCore
import XCTest

@testable import Broadcast

/// A push-to-start on a channel (docs/broadcast.md §5): the channel its body names, the app of its
/// topic, and the lint when that app has no such channel in the environment.
final class PushToStartTests: XCTestCase {
    func testTheChannelOfAStartEvent() {
        let rows: [(String, String?)] = [
            (#"{"aps":{"event":"start","input-push-channel":"dHN0"}}"#, "dHN0"),
            (#"{"aps":{"event":"update","input-push-channel":"dHN0"}}"#, nil),
            (#"{"aps":{"event":"start"}}"#, nil),
            (#"{"aps":{"event":"start","input-push-channel":7}}"#, nil),
            (#"{"event":"start","input-push-channel":"dHN0"}"#, nil),
            ("not json", nil),
        ]
        for (body, expected) in rows {
            XCTAssertEqual(PushToStart.channel(in: Array(body.utf8)), expected, body)
        }
        XCTAssertEqual(PushToStart.bundleID(ofTopic: "com.a.push-type.liveactivity"), "com.a")
        XCTAssertEqual(PushToStart.bundleID(ofTopic: "com.a"), "com.a")
    }

    func testTheLintNamesAChannelTheAppDoesNotHave() throws {
        let store = ChannelStore()
        let made = try store.create(
            bundleID: "com.a", environment: .sandbox, policy: .mostRecentMessageStored, nowMilliseconds: 0
        ).get()
        let check = PushToStart.lintCheck(store)
        func body(_ id: String) -> [UInt8] { Array(#"{"aps":{"event":"start","input-push-channel":"\#(id)"}}"#.utf8) }
        let verdict = ValidationResult(topic: "com.a.push-type.liveactivity", pushType: .liveactivity)
        XCTAssertNil(check(body(made.id), verdict, .sandbox))
        XCTAssertEqual(
            check(body(made.id), verdict, .production), PushToStart.lint(channel: made.id, bundleID: "com.a"))
        XCTAssertEqual(
            check(body("b3RoZXI="), verdict, .sandbox), PushToStart.lint(channel: "b3RoZXI=", bundleID: "com.a"))
        XCTAssertNil(check(Array(#"{"aps":{"event":"update"}}"#.utf8), verdict, .sandbox))
        XCTAssertTrue(PushToStart.lint(channel: "x", bundleID: "com.a").contains("input-push-channel"))
    }
}
