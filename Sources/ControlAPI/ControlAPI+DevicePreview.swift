import APNsCore
import Devices
import JSONInput
import JSONSupport

/// `GET /v1/deliveries/{seq}/preview` (docs/console.md §4): what a device would do with an
/// accepted push, by the device model's own decision (`DeviceReaction(push:device:)`,
/// docs/device-model.md §3), for a virtual device as it is now or in another app state, without
/// delivering anything: the console's per-device and per-app-state preview.
extension ControlAPI {
    /// Query: `device` (a virtual device's token; absent: a device with every default, its token
    /// and topic the record's) and `appState` (`foreground`, `background`, `suspended`,
    /// `notRunning`, `forceQuit`; absent: the device's own). Answers 200 `{"seq", "device": token
    /// or null, "appState", "reaction": DeviceReaction}`; 400 for a bad seq or app state, 404 for
    /// no such record or virtual device, 409 for a push APNs did not accept (no device got it).
    /// Nothing changes: no lifecycle, no badge, no record.
    func devicePreview(seqText: String, _ query: [String: String]) throws(ControlError) -> ControlResponse {
        guard let seq = UInt64(seqText), seq >= 1 else {
            throw .badRequest("seq must be an integer from 1 (seqs start at 1), got '\(seqText)'")
        }
        guard let record = store.record(seq: seq) else { throw .notFound("no delivery with seq \(seq)") }
        var appState: AppState?
        if let text = query["appState"] {
            guard let state = AppState(rawValue: text) else {
                let names = AppState.allCases.map(\.rawValue).joined(separator: ", ")
                throw .badRequest("appState must be one of \(names), got '\(text)'")
            }
            appState = state
        }
        guard record.status == 200 else {
            throw ControlError(
                status: 409,
                message: "delivery \(seq) was answered \(record.status == 0 ? "nothing" : String(record.status)): "
                    + "APNs did not accept it, so no device would get it")
        }
        var device: VirtualDevice
        var token: JSONNode = .null
        if let asked = query["device"] {
            guard let lifecycle = devices.lifecycle(of: asked.lowercased()) else {
                throw .notFound("no virtual device with token \(asked)")
            }
            device = lifecycle.device
            token = .string(device.token)
        } else {
            device = VirtualDevice(
                token: record.verdict.deviceToken ?? "00", topic: record.verdict.topic ?? "",
                environment: record.environment)
        }
        if let appState { device.appState = appState }
        let reaction = DeviceReaction(
            push: DevicePush(id: seq, verdict: record.verdict, body: record.payload), device: device)
        return ControlResponse(
            status: 200,
            json: [
                "seq": .uint(seq), "device": token, "appState": .string(device.appState.rawValue),
                "reaction": reaction.jsonValue(),
            ])
    }
}
