import APNsCore
import Foundation

/// Where a channel-management or broadcast request goes, read from `:method` and `:path`
/// (docs/broadcast.md §A2; §3, "Requests").
///
/// Paths (the bundle ID is one path segment, bare):
/// - `/1/apps/<bundle>/channels`: POST create, GET read, DELETE delete;
/// - `/1/apps/<bundle>/all-channels`: GET list;
/// - `/4/broadcasts/apps/<bundle>`: POST send; also without the leading `/`, as Apple's
///   broadcast sample writes it (when the transport lets it through);
/// - `/1/apps/<bundle>/channels/<id>`: GET read, DELETE delete, APNSwift 234d745's older form
///   with the channel ID in the path (percent-decoded), served when `legacyPathForm` is set.
///
/// Any other path under `/1/` or `/4/` is 404 `BadPath`; a known path with another method is
/// 405 `MethodNotAllowed` (Apple's table: `BadPath` for a bad method *or* path; the device-push
/// API answers 405 for a method it does not take, and so does this).
public struct BroadcastRoute: Sendable, Hashable {
    public var operation: BroadcastOperation
    /// The bundle ID segment as sent.
    public var bundleID: String
    /// The channel ID from the path (the older APNSwift form), nil otherwise.
    public var pathChannelID: String?

    public init(operation: BroadcastOperation, bundleID: String, pathChannelID: String? = nil) {
        self.operation = operation
        self.bundleID = bundleID
        self.pathChannelID = pathChannelID
    }

    /// Whether `path` belongs to the channel or broadcast API (starts `/1/`, `/4/` or `4/`):
    /// the one check a device push pays (its path starts `/3/`).
    @inlinable @inline(__always)
    public static func claims(_ path: String) -> Bool {
        RequestKind(path: path) != .push
    }

    /// The route of a request whose path `claims` accepted, or the reason it has none
    /// (`BadPath`, `MethodNotAllowed`).
    public static func route(method: String, path: String, legacyPathForm: Bool) -> Result<
        BroadcastRoute, BroadcastReason
    > {
        let trimmed = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        func allowed(_ methods: [String], _ route: BroadcastRoute) -> Result<BroadcastRoute, BroadcastReason> {
            methods.contains(method) ? .success(route) : .failure(.methodNotAllowed)
        }
        if parts.count == 4, parts[0] == "4", parts[1] == "broadcasts", parts[2] == "apps", !parts[3].isEmpty {
            return allowed(["POST"], BroadcastRoute(operation: .sendBroadcast, bundleID: String(parts[3])))
        }
        guard path.hasPrefix("/"), parts.count >= 4, parts[0] == "1", parts[1] == "apps", !parts[2].isEmpty else {
            return .failure(.badPath)
        }
        let bundleID = String(parts[2])
        switch (parts.count, parts[3]) {
        case (4, "channels"):
            let operation: BroadcastOperation? =
                switch method {
                case "POST": .createChannel
                case "GET": .readChannel
                case "DELETE": .deleteChannel
                default: nil
                }
            guard let operation else { return .failure(.methodNotAllowed) }
            return .success(BroadcastRoute(operation: operation, bundleID: bundleID))
        case (4, "all-channels"):
            return allowed(["GET"], BroadcastRoute(operation: .listChannels, bundleID: bundleID))
        case (5, "channels") where legacyPathForm && !parts[4].isEmpty:
            let id = parts[4].removingPercentEncoding ?? String(parts[4])
            let operation: BroadcastOperation? =
                switch method {
                case "GET": .readChannel
                case "DELETE": .deleteChannel
                default: nil
                }
            guard let operation else { return .failure(.methodNotAllowed) }
            return .success(BroadcastRoute(operation: operation, bundleID: bundleID, pathChannelID: id))
        default:
            return .failure(.badPath)
        }
    }
}
