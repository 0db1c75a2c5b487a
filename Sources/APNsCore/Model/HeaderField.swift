/// One HTTP/2 header field as received: name in lowercase (HTTP/2 requires it), value as sent.
public struct HeaderField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
