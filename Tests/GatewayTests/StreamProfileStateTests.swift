import XCTest

@testable import Gateway

/// The `apple-observed` profile: 1 after the first rejection, the listener's limit after the
/// first acceptance while lowered, nothing otherwise.
final class StreamProfileStateTests: XCTestCase {
    func testLowersOnRejectionAndRestoresOnAcceptance() {
        var state = StreamProfileState(listenerLimit: 100, lowered: true)
        let steps: [(accepted: Bool, change: UInt32?, lowered: Bool)] = [
            (false, nil, true), (true, 100, false), (true, nil, false), (false, 1, true), (false, nil, true),
            (true, 100, false),
        ]
        for (index, step) in steps.enumerated() {
            XCTAssertEqual(state.change(accepted: step.accepted), step.change, "step \(index)")
            XCTAssertEqual(state.lowered, step.lowered, "step \(index)")
        }
    }
}
