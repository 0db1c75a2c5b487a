import Broadcast
import XCTest

/// Paths and methods (docs/broadcast.md §A2, "Paths"): one row per case.
final class BroadcastRouteTests: XCTestCase {
    func testClaimsOnlyTheChannelAndBroadcastPrefixes() {
        for path in ["/1/apps/x/channels", "/4/broadcasts/apps/x", "4/broadcasts/apps/x", "/1/", "/4/"] {
            XCTAssertTrue(BroadcastRoute.claims(path), path)
        }
        for path in ["/3/device/ab", "", "/", "/1", "/14/", "1/apps/x/channels", "/2/x", "/v1/channels"] {
            XCTAssertFalse(BroadcastRoute.claims(path), path)
        }
    }

    func testRoutes() {
        typealias R = BroadcastRoute
        let rows: [(String, String, Result<BroadcastRoute, BroadcastReason>)] = [
            ("POST", "/1/apps/com.x/channels", .success(R(operation: .createChannel, bundleID: "com.x"))),
            ("GET", "/1/apps/com.x/channels", .success(R(operation: .readChannel, bundleID: "com.x"))),
            ("DELETE", "/1/apps/com.x/channels", .success(R(operation: .deleteChannel, bundleID: "com.x"))),
            ("PUT", "/1/apps/com.x/channels", .failure(.methodNotAllowed)),
            ("GET", "/1/apps/com.x/all-channels", .success(R(operation: .listChannels, bundleID: "com.x"))),
            ("POST", "/1/apps/com.x/all-channels", .failure(.methodNotAllowed)),
            ("POST", "/4/broadcasts/apps/com.x", .success(R(operation: .sendBroadcast, bundleID: "com.x"))),
            ("POST", "4/broadcasts/apps/com.x", .success(R(operation: .sendBroadcast, bundleID: "com.x"))),
            ("GET", "/4/broadcasts/apps/com.x", .failure(.methodNotAllowed)),
            (
                "GET", "/1/apps/com.x/channels/ab%2Bc%2F%3D%3D",
                .success(R(operation: .readChannel, bundleID: "com.x", pathChannelID: "ab+c/=="))
            ),
            (
                "DELETE", "/1/apps/com.x/channels/AAAA",
                .success(R(operation: .deleteChannel, bundleID: "com.x", pathChannelID: "AAAA"))
            ),
            ("POST", "/1/apps/com.x/channels/AAAA", .failure(.methodNotAllowed)),
            ("GET", "/1/apps/com.x/channels/", .failure(.badPath)),
            ("GET", "/1/apps//channels", .failure(.badPath)),
            ("GET", "/1/apps/com.x/other", .failure(.badPath)),
            ("GET", "/1/apps/com.x", .failure(.badPath)),
            ("POST", "/4/broadcasts/apps/", .failure(.badPath)),
            ("POST", "/4/broadcasts/apps/com.x/extra", .failure(.badPath)),
            ("POST", "/4/broadcast/apps/com.x", .failure(.badPath)),
            ("POST", "/1/", .failure(.badPath)),
        ]
        for (method, path, expected) in rows {
            XCTAssertEqual(
                BroadcastRoute.route(method: method, path: path, legacyPathForm: true), expected, "\(method) \(path)")
        }
    }

    func testThePathParameterFormIsABadPathWithoutLegacyForms() {
        XCTAssertEqual(
            BroadcastRoute.route(method: "GET", path: "/1/apps/com.x/channels/AAAA", legacyPathForm: false),
            .failure(.badPath))
    }

    func testKinds() {
        XCTAssertEqual(BroadcastOperation.sendBroadcast.kind, "broadcast")
        XCTAssertEqual(
            Set(BroadcastOperation.allCases.filter { $0 != .sendBroadcast }.map(\.kind)), ["channel"])
    }
}
