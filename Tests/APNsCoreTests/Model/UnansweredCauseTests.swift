import XCTest

@testable import APNsCore

final class UnansweredCauseTests: XCTestCase {
    func testIndexRoundTripsAndNamesAreTheRecordsWords() {
        for cause in UnansweredCause.allCases { XCTAssertEqual(UnansweredCause(index: cause.index), cause) }
        XCTAssertNil(UnansweredCause(index: -1))
        XCTAssertNil(UnansweredCause(index: UnansweredCause.allCases.count))
        XCTAssertEqual(
            UnansweredCause.allCases.map(\.rawValue),
            [
                "connection-closed", "connection-reset", "connection-closed-by-client", "above-last-stream-id",
                "stream-reset-by-client", "stream-reset-by-server",
            ])
    }
}
