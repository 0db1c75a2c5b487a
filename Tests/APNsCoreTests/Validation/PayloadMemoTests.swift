import APNsCore
import XCTest

/// `PayloadMemo`: a body identical to the connection's previous one is not parsed again, and
/// the verdict is the same as with a fresh parse.
final class PayloadMemoTests: XCTestCase {
    typealias F = ValidationFixture

    private func validate(_ request: PushRequest, memo: PayloadMemo?, options: ValidationOptions = ValidationOptions()) -> Verdict {
        RequestValidator.validate(request, environment: .sandbox, options: options, nowMilliseconds: F.now,
                                  payloadMemo: memo) { _ in nil }
    }

    func testRepeatedBodyIsNotParsedAgain() {
        let memo = PayloadMemo()
        let request = F.request(body: #"{"aps":{"alert":"hello","badge":"1"},"x":[1,2]}"#)
        let fresh = validate(request, memo: nil)
        XCTAssertFalse(fresh.lints.isEmpty, "the body has a lint, so the memo carries facts, not just a pass")
        for round in 0..<3 {
            XCTAssertEqual(validate(request, memo: memo), fresh, "round \(round)")
        }
        XCTAssertEqual(memo.hits, 2, "the first body is parsed, the two repeats are not")
    }

    func testSameLengthDifferentBytesIsParsed() {
        let memo = PayloadMemo()
        let alert = F.request(body: #"{"aps":{"alert":"x"}}"#)
        let sound = F.request(body: #"{"aps":{"sound":"x"}}"#)
        let background = F.request(removing: ["apns-push-type"], body: #"{"aps":{"content-available":1}}"#)
        for request in [alert, sound, alert, background, sound] {
            XCTAssertEqual(validate(request, memo: memo), validate(request, memo: nil))
        }
        XCTAssertEqual(memo.hits, 0, "no body followed an identical one")
        XCTAssertEqual(validate(background, memo: memo).pushType, .background)
        XCTAssertEqual(validate(background, memo: memo).pushType, .background, "the repeat keeps its own facts")
        XCTAssertEqual(memo.hits, 1, "only the back-to-back repeat of the background body")
    }

    func testInvalidBodyKeepsItsReasonAndMessage() {
        let memo = PayloadMemo()
        let options = ValidationOptions(invalidPayloadReason: .badMessageId)
        let request = F.request(body: #"{"aps":"#)
        let fresh = validate(request, memo: nil, options: options)
        XCTAssertEqual(fresh.reason, .badMessageId)
        XCTAssertNotNil(fresh.payloadError)
        XCTAssertEqual(validate(request, memo: memo, options: options), fresh)
        XCTAssertEqual(validate(request, memo: memo, options: options), fresh)
        XCTAssertEqual(memo.hits, 1)
        XCTAssertEqual(validate(F.request(body: "[1]"), memo: memo).payloadError, "payload is not a JSON object")
    }

    func testEmptyAndOversizedBodiesNeverReachTheMemo() {
        let memo = PayloadMemo()
        XCTAssertEqual(validate(F.request(body: ""), memo: memo).reason, .payloadEmpty)
        XCTAssertEqual(validate(F.request(body: ""), memo: memo).reason, .payloadEmpty)
        let big = F.request(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: 5000))
        XCTAssertEqual(validate(big, memo: memo).reason, .payloadTooLarge)
        XCTAssertEqual(validate(big, memo: memo).reason, .payloadTooLarge)
        XCTAssertEqual(memo.hits, 0)
    }
}
