/// The values of the `apns-push-type` header (docs/apns-behaviour.md §1.3, Apple's
/// *Sending notification requests to APNs*).
public enum PushType: String, Sendable, Hashable, CaseIterable, Codable {
    case alert, background, voip, complication, fileprovider, mdm, location
    case liveactivity, pushtotalk, widgets, controls

    /// The suffix this push type requires on `apns-topic`, or `nil` when the
    /// topic is the bare bundle ID (alert, background) or not a bundle ID (mdm).
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: return nil
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .location: return ".location-query"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        }
    }

    /// The largest accepted payload in bytes: 5120 for VoIP, 4096 otherwise (Apple, *Sending
    /// notification requests to APNs*).
    public var maxPayloadBytes: Int { self == .voip ? 5120 : 4096 }
}
