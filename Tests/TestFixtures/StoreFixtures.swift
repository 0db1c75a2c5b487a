import Foundation
import HTTP2Transport
import XCTest

@testable import APNsCore
@testable import ControlAPI
@testable import JSONSupport

/// Builders shared by the store, registry and control API tests.
enum StoreFixtures {
    static let token = "aabbccdd"

    static func record(
        token: String? = StoreFixtures.token, topic: String? = "com.example.app",
        status: Int = 200, reason: Reason? = nil, pushTypeSent: String? = "alert",
        pushType: PushType? = .alert, apnsID: String = "6F1D5D8A-8E1B-4C0A-9D1E-6F8B1A2C3D4E",
        collapseID: String? = nil, environment: APNsEnvironment = .sandbox,
        headers: [HeaderField] = [], payload: [UInt8] = Array(#"{"aps":{"alert":"hi"}}"#.utf8),
        receivedAt: Double = 1_796_028_543.123, timestamp: Int64? = nil,
        lints: [String] = [], payloadError: String? = nil
    ) -> DeliveryRecord {
        let verdict = ValidationResult(
            reason: reason, timestamp: timestamp, deviceToken: token, topic: topic,
            pushTypeSent: pushTypeSent, pushType: pushType, priority: 10,
            expiration: nil, collapseID: collapseID, apnsID: apnsID, lints: lints,
            payloadError: payloadError)
        return DeliveryRecord(
            receivedAt: receivedAt, environment: environment, listener: "sandbox",
            connectionID: 3, streamID: 7, method: "POST",
            path: "/3/device/\(token ?? "")", verdict: verdict, apnsID: apnsID,
            uniqueID: nil, headers: headers, payload: payload, status: status,
            reason: reason)
    }

    /// Decodes a JSON body to a dictionary, failing the caller's test when it is not one.
    static func object(_ body: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }

    /// Encodes `value` as the control API does and decodes it back to a dictionary.
    static func object(encoding value: some Encodable) -> [String: Any] {
        object(ControlResponse(status: 200, encoding: value).body)
    }

    static func status() -> ControlStatus {
        ControlStatus(
            version: "0.1.0-test", uptimeMilliseconds: 1234, connectionsOpen: 2,
            listeners: [.init(name: "sandbox", address: "127.0.0.1:2197", environment: .sandbox)], workers: 3,
            openFileLimit: 1024, openFiles: 17)
    }
}

/// One control request in the control API tests.
extension ControlAPI {
    /// Sends one request and expects an immediate answer; fails the caller's test (and answers
    /// status 0 with an empty body) when the API makes it wait.
    func respond(
        _ method: String, _ target: String, body: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) -> ControlResponse {
        // A query the server refuses never reaches the API: answered here as the server answers it.
        guard HTTP1Request(method: method, target: target) != nil else {
            return ControlResponse(status: 400, body: HTTP1Server.malformedQueryBody)
        }
        guard
            case .response(let response) = handle(
                ControlRequest(method: method, target: target, body: Array(body.utf8)))
        else {
            XCTFail("\(method) \(target) unexpectedly waits", file: file, line: line)
            return ControlResponse(status: 0, body: [])
        }
        return response
    }

    /// `respond`'s status and its body decoded to a dictionary.
    func call(
        _ method: String, _ target: String, body: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) -> (Int, [String: Any]) {
        let response = respond(method, target, body: body, file: file, line: line)
        return (response.status, StoreFixtures.object(response.body))
    }
}
