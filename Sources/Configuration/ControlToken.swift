/// The control API's bearer token (`--control-token`, `MOCK_APNS_CONTROL_TOKEN`, `control.token`):
/// 1 to 4096 visible ASCII characters (no space), as an `Authorization: Bearer` value allows.
/// Its description never shows it, so printing a configuration or an error cannot leak it.
public struct ControlToken: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The token itself; hand it only to the access check.
    public let secret: String

    /// What a token must look like, for messages (which never repeat the value given).
    public static let expectation = "1 to 4096 visible ASCII characters without spaces"

    /// The token `text`, or nil when it is empty, too long, or has a space or a control or
    /// non-ASCII character.
    public init?(_ text: String) {
        let bytes = text.utf8
        guard (1...4096).contains(bytes.count), bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        secret = text
    }

    /// `<redacted>`.
    public var description: String { "<redacted>" }
    /// `ControlToken(<redacted>)`.
    public var debugDescription: String { "ControlToken(<redacted>)" }
}
