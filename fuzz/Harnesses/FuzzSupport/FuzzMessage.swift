/// A fuzz input read as one or more HTTP-like messages, so that seeds stay readable text:
/// messages are separated by a line `====`; in each, a start line (`POST /3/device/...`), then
/// `name: value` header lines up to the first empty line, then the body (bytes, as given).
/// Bytes that are not UTF-8 in the start line or headers are read as U+FFFD, as a `String` is.
public struct FuzzMessage {
    /// The first line, e.g. `POST /v1/faults` (`method`, `target`).
    public var startLine: String
    /// The header lines in order, split at their first `:`, the value's leading spaces dropped.
    public var headers: [(name: String, value: String)]
    /// What follows the first empty line.
    public var body: [UInt8]

    /// The start line's first word.
    public var method: String { String(startLine.split(separator: " ", maxSplits: 1).first ?? "") }
    /// The start line after its first word (empty when there is none).
    public var target: String {
        let parts = startLine.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        return parts.count > 1 ? String(parts[1]) : ""
    }

    /// Reads at most `limit` messages from `bytes`.
    public static func messages(_ bytes: [UInt8], limit: Int = 16) -> [FuzzMessage] {
        var messages: [FuzzMessage] = []
        var rest = bytes[...]
        let separator = Array("\n====\n".utf8)
        while messages.count < limit {
            if let end = rest.firstRange(of: separator) {
                messages.append(FuzzMessage(rest[..<end.lowerBound]))
                rest = rest[end.upperBound...]
            } else {
                messages.append(FuzzMessage(rest))
                break
            }
        }
        return messages
    }

    /// Reads one message.
    public init(_ bytes: ArraySlice<UInt8>) {
        let blank = Array("\n\n".utf8)
        let head: ArraySlice<UInt8>
        if let end = bytes.firstRange(of: blank) {
            head = bytes[..<end.lowerBound]
            body = Array(bytes[end.upperBound...])
        } else {
            head = bytes
            body = []
        }
        let lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        startLine = lines.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        headers = lines.dropFirst().map { line in
            let text = String(decoding: line, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else { return (text, "") }
            let value = text[text.index(after: colon)...].drop { $0 == " " }
            return (String(text[..<colon]), String(value))
        }
    }
}
