import APNsCore
import XCTest

@testable import Faults

/// Contexts, rules and engines for the fault tests.
enum FaultFixture {
    static let token = String(repeating: "ab", count: 32)
    static let otherToken = String(repeating: "cd", count: 32)
    static let now: Int64 = 1_700_000_000_000
    static let payload =
        #"{"aps":{"alert":{"title":"Hi"},"badge":3},"items":[{"n":1},{"n":2.5}],"flag":true,"none":null}"#
    static let respond503 = FaultAction.respond(FaultResponse(reason: .serviceUnavailable))

    /// A push that validation accepted, on the sandbox listener, connection 1.
    static func context(
        token: String? = FaultFixture.token, topic: String? = "com.example.app",
        pushTypeSent: String? = "alert", pushType: PushType? = .alert, priority: Int? = 10,
        listener: String = "sandbox", environment: APNsEnvironment = .sandbox,
        keyID: String? = "KEY1234567", teamID: String? = "TEAM123456",
        connection: UInt64 = 1, ordinal: UInt64? = nil,
        headers: [(String, String)] = [("apns-topic", "com.example.app"), ("authorization", "bearer x.y.z")],
        payload: String = FaultFixture.payload, now: Int64 = FaultFixture.now
    ) -> FaultContext {
        FaultContext(
            token: token, topic: topic, pushTypeSent: pushTypeSent, pushType: pushType, priority: priority,
            listener: listener, environment: environment, keyID: keyID, teamID: teamID,
            connectionID: connection, connectionOrdinal: ordinal,
            headers: headers.map { HeaderField(name: $0.0, value: $0.1) }, payload: Array(payload.utf8),
            nowMilliseconds: now)
    }

    /// Decodes a rule, failing the test on error.
    static func rule(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> FaultRule? {
        do {
            return try FaultRule.decode(json: Array(json.utf8))
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    /// An engine holding `rules` (JSON), failing the test on error.
    static func engine(_ rules: String..., file: StaticString = #filePath, line: UInt = #line) -> FaultEngine {
        let engine = FaultEngine(clock: { FaultFixture.now })
        for json in rules {
            guard let rule = rule(json, file: file, line: line) else { continue }
            XCTAssertNoThrow(try engine.add(rule), file: file, line: line)
        }
        return engine
    }

    /// The status each context gets: the decision's respond status, 0 for other actions,
    /// nil for no fault.
    static func statuses(_ engine: FaultEngine, _ contexts: [FaultContext]) -> [Int?] {
        contexts.map { context in
            engine.evaluate(context).map { decision in
                if case .respond(let response) = decision.action { return response.status }
                return 0
            }
        }
    }

    /// JSON with sorted keys, for comparisons.
    static func canonical(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
