/// Keeps what a test may assert about a provider token and drops what is secret.
public enum AuthorizationRedaction {
    /// `bearer <header>.<claims>.<signature>` becomes `bearer <header>.<claims>`: the signature
    /// never reaches a record. Values that are not a three-part JWT are replaced by `<redacted>`,
    /// since they may be a secret in another form.
    public static func redact(_ value: String) -> String {
        // Searches over the contiguous UTF-8 bytes: the generic UTF8View searches cost about
        // 5,000 instructions for a typical token, on every push.
        let lastDot: Int? = UTF8Bytes.with(value) { bytes in
            guard let last = bytes.lastIndex(of: UInt8(ascii: ".")),
                  UnsafeBufferPointer(rebasing: bytes[..<last]).contains(UInt8(ascii: ".")) else { return nil }
            return last
        }
        guard let lastDot else { return "<redacted>" }
        // "." is ASCII, so the offset is a character boundary.
        return String(value[..<value.utf8.index(value.utf8.startIndex, offsetBy: lastDot)])
    }

    /// The header list a record keeps: `headers` as received, each `authorization` value passed
    /// through `redact`.
    static func recorded(_ headers: [HeaderField], redact: (String) -> String = redact) -> [HeaderField] {
        var recorded = headers
        for index in recorded.indices where recorded[index].name == "authorization" {
            recorded[index].value = redact(recorded[index].value)
        }
        return recorded
    }
}
