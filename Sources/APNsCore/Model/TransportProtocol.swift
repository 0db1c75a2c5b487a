/// The protocol a recorded request came by (docs/legacy-binary.md §8): the HTTP/2 provider API
/// (device pushes, channel management, broadcasts) or the legacy binary gateway. A record's
/// `protocol`, and the delivery filter's.
public enum TransportProtocol: String, Sendable, Hashable, CaseIterable, Codable {
    case http2, binary
}
