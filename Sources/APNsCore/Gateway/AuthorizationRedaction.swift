/// Keeps what a test may assert about a provider token and drops what is secret.
public enum AuthorizationRedaction {
    /// `bearer <header>.<claims>.<signature>` becomes `bearer <header>.<claims>`: the signature
    /// never reaches a record. Values that are not a three-part JWT are replaced by `<redacted>`,
    /// since they may be a secret in another form.
    public static func redact(_ value: String) -> String {
        let utf8 = value.utf8
        guard let lastDot = utf8.lastIndex(of: UInt8(ascii: ".")),
              utf8[..<lastDot].contains(UInt8(ascii: ".")) else { return "<redacted>" }
        return String(value[..<lastDot])
    }
}
