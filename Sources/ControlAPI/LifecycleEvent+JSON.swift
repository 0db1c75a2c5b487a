import Devices
import JSONInput

extension LifecycleEvent {
    /// The transition as records and the delivery log show it (docs/device-model.md §2):
    /// `{"state": console name, e.g. "Stored - Device Offline", "kind": "received" | "delivered" |
    /// "stored" | "discarded" | "replaced", "cause" (stored, discarded), "fromStorage" (delivered,
    /// discarded), "at": ISO 8601 on the server's clock, "atSeconds": seconds since the epoch,
    /// "replaced": the seq this one replaced, "replacedBy": the seq that replaced this one}`.
    public func jsonValue() -> JSONNode {
        var object: [String: JSONNode] = [
            "state": .string(state.consoleName),
            "at": .string(ISO8601Timestamp.format(epochSeconds: at)),
            "atSeconds": .double(at),
        ]
        switch state {
        case .received:
            object["kind"] = .string("received")
        case .delivered(let fromStorage):
            object["kind"] = .string("delivered")
            object["fromStorage"] = .bool(fromStorage)
        case .stored(let cause):
            object["kind"] = .string("stored")
            object["cause"] = .string(cause.rawValue)
        case .discarded(let cause, let fromStorage):
            object["kind"] = .string("discarded")
            object["cause"] = .string(cause.rawValue)
            object["fromStorage"] = .bool(fromStorage)
        case .replaced(let by):
            object["kind"] = .string("replaced")
            object["replacedBy"] = .uint(by)
        }
        if let replaced { object["replaced"] = .uint(replaced) }
        return .object(object)
    }
}
