import APNsCore

/// Keeps what a test may assert about a provider token and drops what is secret.
public enum AuthorizationRedaction {
    /// `bearer <header>.<claims>.<signature>` becomes `bearer <header>.<claims>`: the signature
    /// never reaches a record. Values that are not a three-part JWT are replaced by `<redacted>`,
    /// since they may be a secret in another form.
    public static func redact(_ value: String) -> String {
        // Cut at the second dot, not the last: `bearer h.c.s.` or `h.c.s.x` must not keep `s`.
        // Searches the contiguous UTF-8 bytes, not the generic UTF8View (far slower; measured in
        // bench/README.md, "Profile and fix").
        let secondDot: Int? = UTF8Bytes.with(value) { bytes in
            guard let first = bytes.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            return UnsafeBufferPointer(rebasing: bytes[(first + 1)...]).firstIndex(of: UInt8(ascii: ".")).map {
                first + 1 + $0
            }
        }
        guard let secondDot else { return "<redacted>" }
        // "." is ASCII, so the offset is a character boundary.
        return String(value[..<value.utf8.index(value.utf8.startIndex, offsetBy: secondDot)])
    }

    /// The header list a record keeps: `headers` as received, each `authorization` value passed
    /// through `redact`.
    public static func recorded(_ headers: [HeaderField], redact: (String) -> String = redact) -> [HeaderField] {
        var recorded = headers
        for index in recorded.indices where recorded[index].name == "authorization" {
            recorded[index].value = redact(recorded[index].value)
        }
        return recorded
    }
}
