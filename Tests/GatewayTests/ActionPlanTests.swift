import XCTest

@testable import APNsCore
@testable import Faults
@testable import Gateway

/// `ActionPlan.init(_:streamID:)`, the one translation of a fault action: what the stream is
/// answered, what happens to it and to the connection, and when.
final class ActionPlanTests: XCTestCase {
    func testEveryFaultActionTranslates() {
        let respond = FaultResponse(reason: .serviceUnavailable)
        let shutdown = ReasonJSON.bytes("Shutdown")
        let rows: [(FaultAction, ActionPlan, UInt)] = [
            (.respond(respond), ActionPlan(answer: .replaced(respond), stream: .answer), #line),
            (.sickConnection(respond), ActionPlan(answer: .replaced(respond), stream: .answer), #line),
            (.noResponse, ActionPlan(answer: .none, stream: .leaveOpen), #line),
            (.resetStream(.refusedStream), ActionPlan(answer: .none, stream: .reset(.refusedStream)), #line),
            (
                .goaway(GoawayFault(reason: "Shutdown", closeAfterMs: 500)),
                ActionPlan(
                    answer: .none, stream: .leaveOpen,
                    connection: .goaway(
                        errorCode: 0, lastStreamID: 5, debugData: shutdown, closeAfterMilliseconds: 500,
                        thenBare: false)), #line
            ),
            (
                .goaway(
                    GoawayFault(
                        errorCode: .enhanceYourCalm, lastStreamID: 0, debugData: "raw", keepOpen: true,
                        secondBareGoaway: true)),
                ActionPlan(
                    answer: .none, stream: .leaveOpen,
                    connection: .goaway(
                        errorCode: 11, lastStreamID: 0, debugData: Array("raw".utf8), closeAfterMilliseconds: nil,
                        thenBare: true)), #line
            ),
            (
                .goaway(GoawayFault(when: .afterResponse)),
                ActionPlan(
                    answer: .normal, stream: .answer,
                    connection: .goaway(
                        errorCode: 0, lastStreamID: nil, debugData: [], closeAfterMilliseconds: 0, thenBare: false),
                    connectionAfterResponse: true), #line
            ),
            (
                .close(.beforeResponse),
                ActionPlan(answer: .none, stream: .leaveOpen, connection: .close(reset: false, when: .beforeResponse)),
                #line
            ),
            (
                .reset(.afterResponse),
                ActionPlan(
                    answer: .normal, stream: .answer, connection: .close(reset: true, when: .afterResponse),
                    connectionAfterResponse: true), #line
            ),
            (
                .settings(maxConcurrentStreams: 3),
                ActionPlan(answer: .normal, stream: .answer, connection: .settings(maxConcurrentStreams: 3)), #line
            ),
            (
                .withholdWindowUpdate(milliseconds: 40),
                ActionPlan(answer: .normal, stream: .answer, connection: .withholdWindowUpdate(milliseconds: 40)),
                #line
            ),
            (
                .delay(milliseconds: 25, then: nil),
                ActionPlan(answer: .normal, stream: .answer, delayMilliseconds: 25), #line
            ),
            (
                .delay(milliseconds: 0, then: nil), ActionPlan(answer: .normal, stream: .answer, delayMilliseconds: 0),
                #line
            ),
            (
                .delay(milliseconds: 10, then: .delay(milliseconds: 20, then: .respond(respond))),
                ActionPlan(answer: .replaced(respond), stream: .answer, delayMilliseconds: 30), #line
            ),
            (
                .delay(milliseconds: 10, then: .reset(.beforeResponse)),
                ActionPlan(
                    answer: .none, stream: .leaveOpen, connection: .close(reset: true, when: .beforeResponse),
                    delayMilliseconds: 10), #line
            ),
            (
                .drain(reason: "Shutdown", maxMilliseconds: 800),
                ActionPlan(
                    answer: .normal, stream: .answer, connection: .drain(debugData: shutdown, maxMilliseconds: 800)),
                #line
            ),
            (.sequence([.pass]), .normal, #line),
            (.rateLimit(FaultRateLimit(perSecond: 1)), .normal, #line),
            (.streamRateLimit(FaultStreamRateLimit(perSecond: 1)), .normal, #line),
            (
                .randomDelay(FaultLatency(.uniform(minMilliseconds: 1, maxMilliseconds: 9)), then: .noResponse),
                ActionPlan(answer: .none, stream: .leaveOpen), #line
            ),
        ]
        for (action, plan, line) in rows {
            XCTAssertEqual(ActionPlan(action, streamID: 7), plan, "\(action)", line: line)
        }
    }

    /// A GOAWAY before the response leaves the triggering stream above its last-stream-id
    /// (docs/field-cases.md C1), never below 0.
    func testGoawayBeforeTheResponseLeavesTheStreamAboveLastStreamID() {
        for (stream, last): (Int32, Int32) in [(1, 0), (3, 1), (101, 99)] {
            guard case .goaway(_, let sent?, _, _, _)? = ActionPlan(.goaway(GoawayFault()), streamID: stream).connection
            else { return XCTFail("no GOAWAY") }
            XCTAssertEqual(sent, last)
        }
    }

    /// A rejected credential: no answer, GOAWAY NO_ERROR last-stream-id 0 with its reason, closed once written.
    func testEndConnectionSendsTheReasonInGoaway() {
        XCTAssertEqual(
            ActionPlan.endConnection(.badCertificateEnvironment),
            ActionPlan(
                answer: .none, stream: .leaveOpen,
                connection: .goaway(
                    errorCode: 0, lastStreamID: 0, debugData: Array(#"{"reason":"BadCertificateEnvironment"}"#.utf8),
                    closeAfterMilliseconds: 0, thenBare: false)))
        XCTAssertFalse(ActionPlan.endConnection(.badCertificate).answersNormally)
        XCTAssertTrue(ActionPlan.normal.answersNormally)
    }
}
