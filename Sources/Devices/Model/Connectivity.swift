/// Whether a virtual device can take a push now (docs/device-model.md §2.1, §2.5).
public enum Connectivity: String, Sendable, Hashable, CaseIterable, Codable {
    /// Connected: pushes are delivered at once.
    case online
    /// Not connected: pushes are stored (one per app) until it comes online or they expire.
    case offline
    /// Connected, but under power restrictions: priority 10 is delivered, priority 5 and 1 are
    /// held and delivered in bursts ("Stored - Power Considerations").
    case lowPower
}
