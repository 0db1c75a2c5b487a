import APNsCore
import Devices
import Foundation
import JSONInput

extension DeviceLifecycle {
    /// A virtual device as `GET /v1/devices/{token}` shows it (docs/device-model.md §7): its
    /// registration's keys (`DeviceRegistration.jsonValue()`, from `registration`), `"virtual":
    /// true`, the device-model fields as registered (`connectivity`, `appState`, `settings`,
    /// `capabilities`, `categories`, `foregroundPresentation`, `installed`), and its state:
    /// `"badge"`, `"stored"` (APNs's one stored notification: `{"notification": seq, "since",
    /// "deadline" (ISO 8601, server clock), "cause"}` or null), `"held"` (the low-power and
    /// budget holds, same shape), `"delivered"` (the seqs delivered, in order) and `"shown"` (the
    /// seqs in Notification Center, oldest first).
    public func jsonValue(registration: DeviceRegistration?) -> JSONNode {
        var object: [String: JSONNode] = [:]
        if case .object(let members)? = registration?.jsonValue() { object = members }
        if let encoded = try? JSONEncoder().encode(device),
            case .object(let fields)? = try? JSONNode(decoding: [UInt8](encoded))
        {
            for (key, value) in fields { object[key] = value }
        }
        object["virtual"] = .bool(true)
        object["badge"] = .int(Int64(badge))
        object["stored"] = stored.map(Self.json) ?? .null
        object["held"] = .array((powerHeld + (budgetHeld.map { [$0] } ?? [])).map(Self.json))
        object["delivered"] = .array(delivered.map { .uint($0) })
        object["shown"] = .array(shown.map { .uint($0.push.id) })
        return .object(object)
    }

    private static func json(_ pending: Pending) -> JSONNode {
        [
            "notification": .uint(pending.push.id),
            "since": .string(ISO8601Timestamp.format(epochSeconds: pending.since)),
            "deadline": pending.deadline.isFinite
                ? .string(ISO8601Timestamp.format(epochSeconds: pending.deadline)) : .null,
            "cause": .string(pending.cause.rawValue),
        ]
    }
}
