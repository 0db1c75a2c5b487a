import APNsCore
import Foundation
import FuzzSupport
import HTTPFields
import Recording

/// A push as the gateway assembles it (method, `:path`, header fields lowercase as HTTP/2
/// requires, body) through `RequestValidator` (the header checks, then the body through yajl and
/// the payload lints), in both environments, with the default options and with lints as
/// errors and a fixed token length. Then the compact record store's round trip: the request
/// recorded with its verdict reads back with the same path, headers, payload and verdict.
@_cdecl("LLVMFuzzerTestOneInput")
public func pushValidationFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let message = FuzzMessage(FuzzDriver.bytes(data, size)[...])
    let request = HTTP2Request(
        streamID: 1, method: message.method, path: message.target,
        headers: message.headers.map { HeaderField(name: $0.name.lowercased(), value: $0.value) },
        body: message.body)
    let registration = DeviceRegistration(token: "0a1b", topic: "com.example.app", environment: .production)
    let lookup: (String) -> DeviceRegistration? = { $0 == registration.token ? registration : nil }
    let strict = ValidationOptions(tokenLength: 64, lintsAsErrors: true, registry: .closed)
    let store = DeliveryStore(capacity: 4)
    for (environment, options) in [(APNsEnvironment.sandbox, ValidationOptions()), (.production, strict)] {
        let verdict = RequestValidator.validate(
            request, environment: environment, options: options, nowMilliseconds: 1_700_000_000_123,
            defaultTopic: "com.example.default", lookup: lookup)
        let again = RequestValidator.validate(
            request, environment: environment, options: options, nowMilliseconds: 1_700_000_000_123,
            defaultTopic: "com.example.default", lookup: lookup)
        precondition(verdict == again, "one request, two verdicts")
        let status = verdict.reason.map { $0.status } ?? 200
        let record = DeliveryRecord(
            receivedAt: 1_700_000_000.123, environment: environment, listener: "fuzz", connectionID: 1,
            streamID: request.streamID, method: request.method, path: request.path, verdict: verdict,
            apnsID: verdict.apnsID ?? "00000000-0000-0000-0000-000000000000", uniqueID: nil,
            headers: request.headers, payload: request.body, status: status, reason: verdict.reason)
        let seq = store.append(record)
        guard let back = store.record(seq: seq) else { preconditionFailure("a record just stored is missing") }
        precondition(back.method == request.method && back.path == request.path, "method or path changed")
        precondition(back.headers == request.headers, "headers changed in the store")
        precondition(back.payload == request.body, "payload changed in the store")
        precondition(back.verdict == verdict, "verdict changed in the store")
        precondition(back.status == status && back.reason == verdict.reason, "answer changed in the store")
    }
    return 0
}

@_cdecl("PushValidationFuzz_main")
public func pushValidationFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, pushValidationFuzz)
}
