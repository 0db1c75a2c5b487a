/// Which topics an APNs auth key may push to (Apple, *Establishing a token-based connection to
/// APNs*; docs/apns-behaviour.md §4).
public enum KeyScope: Sendable, Hashable {
    /// A team-scoped key: every topic of its team.
    case team
    /// A topic-specific key: the listed bundle IDs (Apple allows up to 400), each with its
    /// push-type suffixed forms (`<topic>.voip`, `<topic>.push-type.liveactivity`...).
    case topics(Set<String>)

    /// Whether this is a team-scoped key.
    public var isTeamScoped: Bool {
        if case .team = self { return true }
        return false
    }
}
