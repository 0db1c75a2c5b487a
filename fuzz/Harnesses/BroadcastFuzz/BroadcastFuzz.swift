import APNsCore
import Broadcast
import FuzzSupport
import HTTPFields

/// Broadcast push and channel management (docs/broadcast.md): up to 16 requests per input on one
/// `BroadcastService` with a small channel store (at most 4 per app and environment), each whose
/// path `BroadcastRoute.claims` decided in APNs's order; the answer's status is its reason's (or
/// 200/201/204), and the store never holds more than its limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func broadcastFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let store = ChannelStore(limit: 4)
    let service = BroadcastService(store: store, makeRequestID: { "6f1d5d8a-8e1b-4c0a-9d1e-6f8b1a2c3d4e" })
    for message in FuzzMessage.messages(FuzzDriver.bytes(data, size)) {
        guard BroadcastRoute.claims(message.target) else { continue }
        let request = HTTP2Request(
            streamID: 1, method: message.method, path: message.target,
            headers: message.headers.map { HeaderField(name: $0.name.lowercased(), value: $0.value) },
            body: message.body)
        let environment: APNsEnvironment = message.body.count % 2 == 0 ? .sandbox : .production
        let answer = service.handle(
            request, environment: environment, nowMilliseconds: 1_700_000_000_123,
            authorize: { bundleID in bundleID == "com.example.denied" ? .invalidProviderToken : nil })
        if let reason = answer.reason {
            precondition(answer.status == reason.status, "a refusal's status is not its reason's")
        } else {
            precondition([200, 201, 204].contains(answer.status), "an accepted request answered \(answer.status)")
        }
    }
    for environment in [APNsEnvironment.sandbox, .production] {
        var perApp: [String: Int] = [:]
        for channel in store.allChannels() where channel.environment == environment {
            perApp[channel.bundleID, default: 0] += 1
        }
        precondition(perApp.values.allSatisfy { $0 <= store.limit }, "more channels than the limit")
    }
    return 0
}

@_cdecl("BroadcastFuzz_main")
public func broadcastFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, broadcastFuzz)
}
