import XCTest

@testable import APNsCore
@testable import Gateway
@testable import Recording
@testable import TestFixtures

/// `PreviousRequest.acceptedPush(body:)`: after `Gateway.handle`, the verdict and the body's
/// `PayloadFacts` of the push just handled, as the validation judged them (docs/device-model.md §7),
/// for fresh, repeated and varied pushes; no facts for a body other than the one inspected.
final class PreviousRequestAcceptedPushTests: XCTestCase {
    typealias F = ValidationFixture
    private let connection = PushOrigin(id: 3, listener: "sandbox", environment: .sandbox, peer: "127.0.0.1:1")

    func testVerdictAndFactsOfEachAcceptedPush() {
        let gateway = Gateway(
            store: DeliveryStore(capacity: 100), registry: DeviceRegistry(), options: ValidationOptions())
        let memo = PreviousRequest()
        let alert = F.request(body: #"{"aps":{"alert":"hi","badge":2}}"#)
        let background = F.request(
            replacing: ["apns-push-type": "background"], extra: [("apns-priority", "5"), ("apns-collapse-id", "c")],
            body: #"{"aps":{"content-available":1}}"#)
        for (round, request) in [alert, alert, background, background, alert].enumerated() {
            let decision = gateway.handle(request, connection: connection, streamID: Int32(1 + 2 * round), memo: memo)
            XCTAssertTrue(decision.accepted, "round \(round)")
            let fresh = RequestValidator.validate(
                request, environment: .sandbox, options: ValidationOptions(), nowMilliseconds: F.now
            ) { _ in nil }
            let (verdict, facts) = memo.acceptedPush(body: request.body)
            XCTAssertEqual(verdict.pushType, fresh.pushType, "round \(round)")
            XCTAssertEqual(verdict.priority, fresh.priority, "round \(round)")
            XCTAssertEqual(verdict.expiration, fresh.expiration, "round \(round)")
            XCTAssertEqual(verdict.collapseID, fresh.collapseID, "round \(round)")
            guard case .object(let expected) = PayloadInspector.inspect(request.body) else {
                return XCTFail("round \(round): the body is an object")
            }
            XCTAssertEqual(facts, expected, "round \(round)")
        }
        XCTAssertEqual(memo.acceptedPush(body: background.body).verdict.collapseID, nil, "the last push was the alert")
        XCTAssertNil(memo.acceptedPush(body: background.body).facts, "not the body last inspected")
    }
}
