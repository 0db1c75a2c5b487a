/// One HTTP/2 header field: name in lowercase (HTTP/2 requires it, RFC 9113 section 8.2.1),
/// value as sent.
///
/// Its own module so that the transport (which receives and sends fields) and the APNs domain
/// (which reads and records them) share one type: a request's fields and a response's reach the
/// other side as the same array, with no per-push conversion (issue #5).
public struct HeaderField: Sendable, Hashable {
    public var name: String
    public var value: String

    @inlinable
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
