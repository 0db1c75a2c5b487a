import APNsCore
import ControlAPI
import Foundation
import FuzzSupport
import HTTP2Transport
import JSONSupport
import Recording

/// The control API as `ControlServer` drives it: up to 16 requests per input (`METHOD target`,
/// headers, body), each target split by the transport's `HTTP1Request` (libevent's query
/// parser), then `ControlAccessPolicy.decide` (Host, Origin, content type, bearer token) and,
/// for those it serves, `ControlAPI.handle`: fault rules, devices, verification, channels,
/// deliveries, events, clock, feedback. Requests share one API, so a rule or device one adds,
/// the next can read, change or delete. A long poll is answered as at its timeout; every
/// answer is a status from 200 to 599 with a JSON body where the status is an error.
@_cdecl("LLVMFuzzerTestOneInput")
public func controlAPIFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let store = DeliveryStore(capacity: 8)
    let api = ControlAPI(
        store: store, registry: DeviceRegistry(), events: ConnectionEventStore(capacity: 8),
        clock: { 1_700_000_000.123 },
        status: {
            ControlStatus(
                version: "fuzz", uptimeMilliseconds: 1, connectionsOpen: 0,
                listeners: [.init(name: "sandbox", address: "127.0.0.1:2197", environment: .sandbox)], workers: 1)
        })
    let policy = ControlAccessPolicy(allowedOrigins: ["http://console.example"], token: "fuzz-token")
    for message in FuzzMessage.messages(FuzzDriver.bytes(data, size)) {
        guard
            let http = HTTP1Request(
                method: message.method, target: message.target, body: message.body, headers: message.headers)
        else { continue }
        let request = ControlRequest(
            method: http.method, path: http.path, query: http.query, body: http.body, headers: http.headers)
        if case .answer(let response) = policy.decide(request) {
            check(response)
            continue
        }
        switch api.handle(request) {
        case .response(let response):
            check(response)
        case .wait(var wait):
            guard let response = api.waitResult(&wait, timedOut: true) else {
                preconditionFailure("a long poll left unanswered at its timeout")
            }
            check(response)
        case .stream:
            // A live stream needs the HTTP adapter's connection: nothing to check here.
            continue
        }
    }
    return 0
}

private func check(_ response: ControlResponse) {
    precondition((200...599).contains(response.status), "status \(response.status)")
    if response.status >= 400 {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        precondition(object?["error"] is String, "an error answer without a JSON {\"error\": ...} body")
    }
}

@_cdecl("ControlAPIFuzz_main")
public func controlAPIFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, controlAPIFuzz)
}
