import APNsCore
import ControlAPI
import Gateway
import XCTest

@testable import MockAPNs

/// A control-API command becomes the connection action the one performer carries out.
final class TransportConnectionDirectoryTests: XCTestCase {
    func testCommandsBecomeConnectionActions() {
        XCTAssertEqual(
            TransportConnectionDirectory.action(
                for: .goaway(errorCode: 11, reason: "Shutdown", closeAfterMilliseconds: 250)),
            .goaway(
                errorCode: 11, lastStreamID: nil, debugData: Array(#"{"reason":"Shutdown"}"#.utf8),
                closeAfterMilliseconds: 250, thenBare: false))
        XCTAssertEqual(
            TransportConnectionDirectory.action(for: .goaway(errorCode: 0, reason: nil, closeAfterMilliseconds: nil)),
            .goaway(errorCode: 0, lastStreamID: nil, debugData: [], closeAfterMilliseconds: nil, thenBare: false))
        XCTAssertEqual(TransportConnectionDirectory.action(for: .close), .close(reset: false, when: nil))
        XCTAssertEqual(TransportConnectionDirectory.action(for: .reset), .close(reset: true, when: nil))
    }
}
