/// A channel-management request or a broadcast send instead of a device push (docs/broadcast.md
/// §A2): `mock-apns send --create-channel`, `--read-channel ID`, `--delete-channel ID`,
/// `--list-channels` or `--broadcast ID`, for the bundle ID given with `--topic`.
public enum SendChannelAction: Sendable, Equatable {
    /// `POST /1/apps/<bundle>/channels` with `{"message-storage-policy":N,"push-type":"LiveActivity"}`.
    case create(storagePolicy: Int)
    /// `GET /1/apps/<bundle>/channels` with `apns-channel-id`.
    case read(channelID: String)
    /// `DELETE /1/apps/<bundle>/channels` with `apns-channel-id`.
    case delete(channelID: String)
    /// `GET /1/apps/<bundle>/all-channels`.
    case list
    /// `POST /4/broadcasts/apps/<bundle>` with `apns-channel-id` and the payload.
    case broadcast(channelID: String)

    /// `:method` and `:path` for `bundleID`.
    func target(bundleID: String) -> (method: String, path: String) {
        switch self {
        case .create: return ("POST", "/1/apps/\(bundleID)/channels")
        case .read: return ("GET", "/1/apps/\(bundleID)/channels")
        case .delete: return ("DELETE", "/1/apps/\(bundleID)/channels")
        case .list: return ("GET", "/1/apps/\(bundleID)/all-channels")
        case .broadcast: return ("POST", "/4/broadcasts/apps/\(bundleID)")
        }
    }

    /// The channel the request names, nil for a create and a list.
    var channelID: String? {
        switch self {
        case .read(let id), .delete(let id), .broadcast(let id): return id
        case .create, .list: return nil
        }
    }

    /// Whether the request carries the command's payload (a broadcast does; a create carries its
    /// own body; the others none).
    var takesPayload: Bool { if case .broadcast = self { true } else { false } }
}
