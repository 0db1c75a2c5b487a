/// One HTTP/2 header field (never a pseudo-header such as `:status`).
public struct HTTP2Header: Sendable, Equatable, Hashable {
    /// The field name, lowercase as HTTP/2 requires.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field; `name` is lowercased.
    public init(_ name: String, _ value: String) {
        self.name = name.lowercased()
        self.value = value
    }
}
