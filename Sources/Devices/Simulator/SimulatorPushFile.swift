import APNsCore
import Foundation
import JSONInput

/// The Simulator's `.apns` file (docs/device-model.md §6): what `xcrun simctl push booted file.apns`
/// takes, or what is dropped onto a simulator. A JSON object with the push's payload (`aps` and
/// any custom keys) and a top-level `"Simulator Target Bundle"` string naming the app; at most
/// 4096 bytes; application remote notifications only (alert and background pushes).
public enum SimulatorPushFile {
    /// The top-level key naming the app's bundle ID.
    public static let bundleKey = "Simulator Target Bundle"
    /// The largest file `simctl push` takes, in bytes.
    public static let maxBytes = 4096

    /// The file for a push of `pushType` with body `payload` to the app `bundleID`: the payload's
    /// members plus `bundleKey`, written with sorted keys and no insignificant whitespace.
    /// - Throws: `InputError` at `pushType` for a type `simctl` does not take (anything but alert
    ///   and background), at `payload` when the body is not a JSON object with an `aps` object, and
    ///   at the root when the file would be over 4096 bytes.
    public static func make(payload: [UInt8], bundleID: String, pushType: PushType) throws(InputError) -> [UInt8] {
        guard pushType == .alert || pushType == .background else {
            throw InputError(
                path: "pushType",
                message: "simctl push takes only application remote notifications (alert, background), not "
                    + pushType.rawValue)
        }
        guard var object = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any],
            object["aps"] is [String: Any]
        else {
            throw InputError(path: "payload", message: "expected a JSON object with an aps object")
        }
        object[bundleKey] = bundleID
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            throw InputError(path: "payload", message: "cannot be written as JSON")
        }
        let bytes = [UInt8](data)
        guard bytes.count <= maxBytes else {
            throw InputError(
                path: "", message: "the .apns file would be \(bytes.count) bytes; simctl push takes at most \(maxBytes)"
            )
        }
        return bytes
    }

    /// What `simctl push` would refuse in `file`, per its rules: not a JSON object at the top
    /// level, no `aps` object, no `"Simulator Target Bundle"` string (when `needsBundle`; the
    /// command line may name the bundle instead), more than 4096 bytes. Empty when it is fine.
    public static func problems(in file: [UInt8], needsBundle: Bool = true) -> [String] {
        var problems: [String] = []
        if file.count > maxBytes { problems.append("\(file.count) bytes, over \(maxBytes)") }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(file))) as? [String: Any] else {
            return problems + ["not a JSON object at the top level"]
        }
        if !(object["aps"] is [String: Any]) { problems.append("no aps object") }
        if needsBundle, !((object[bundleKey] as? String).map { !$0.isEmpty } ?? false) {
            problems.append("no \"\(bundleKey)\" string")
        }
        return problems
    }
}
