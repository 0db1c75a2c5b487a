import JSONInput

/// When a connection-level fault strikes relative to the stream that triggered it.
public enum ResponseTiming: String, Sendable, Hashable, CaseIterable, Codable {
    /// As soon as the request (HEADERS and DATA) has arrived, before any response: the stream
    /// is left unanswered (docs/field-cases.md C3: RST after the request, before the response).
    case beforeResponse = "before-response"
    /// Right after the stream's normal answer has been written.
    case afterResponse = "after-response"

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(JSONNode.self)
        guard case .string(let text) = value, let moment = ResponseTiming(rawValue: text) else {
            throw InputError(
                at: decoder.codingPath, "expected \"before-response\" or \"after-response\", got \(value.rendered)")
        }
        self = moment
    }
}
