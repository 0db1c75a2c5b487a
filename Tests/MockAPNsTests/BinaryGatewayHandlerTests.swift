import APNsCore
import XCTest

@testable import MockAPNs

final class BinaryGatewayHandlerTests: XCTestCase {
    func testRegistryStatusIsEightOrSilentAccept() {
        let sandbox = DeviceRegistration(token: "aa", environment: .sandbox)
        let production = DeviceRegistration(token: "aa", environment: .production)
        var unregistered = sandbox
        unregistered.unregisteredAt = 1_000
        var expired = sandbox
        expired.expired = true
        let rows: [(DeviceRegistration?, RegistryMode, Bool)] = [
            (nil, .open, false), (nil, .closed, true), (sandbox, .closed, false), (production, .open, true),
            (unregistered, .open, true), (expired, .open, true),
        ]
        for (registration, mode, refused) in rows {
            XCTAssertEqual(
                BinaryGatewayHandler.registryStatus(
                    registration, environment: .sandbox, mode: mode, answer: .invalidToken),
                refused ? .invalidToken : nil, "\(String(describing: registration)) \(mode)")
            XCTAssertNil(
                BinaryGatewayHandler.registryStatus(registration, environment: .sandbox, mode: mode, answer: .accept))
        }
    }
}
