import Broadcast
import XCTest

final class MessageStoragePolicyTests: XCTestCase {
    func testValuesAndStorage() {
        XCTAssertEqual(MessageStoragePolicy(rawValue: 0), .noMessageStored)
        XCTAssertEqual(MessageStoragePolicy(rawValue: 1), .mostRecentMessageStored)
        XCTAssertNil(MessageStoragePolicy(rawValue: 2))
        XCTAssertEqual(MessageStoragePolicy.mostRecentMessageStored.storedSeconds, 8 * 3600)
        XCTAssertEqual(MessageStoragePolicy.noMessageStored.storedSeconds, 0)
    }
}
