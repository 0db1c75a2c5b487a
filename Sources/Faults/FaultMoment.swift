import JSONSupport

/// When a connection-level fault strikes relative to the stream that triggered it.
public enum FaultMoment: String, Sendable, Hashable, CaseIterable, Codable {
    /// As soon as the request (HEADERS and DATA) has arrived, before any response: the stream
    /// is left unanswered (docs/field-cases.md C3: RST after the request, before the response).
    case beforeResponse = "before-response"
    /// Right after the stream's normal answer has been written.
    case afterResponse = "after-response"

    public init(from decoder: any Decoder) throws {
        let path = FaultRuleError.path(decoder.codingPath)
        let value = try decoder.singleValueContainer().decode(ControlJSON.self)
        guard case .string(let text) = value, let moment = FaultMoment(rawValue: text) else {
            throw FaultRuleError(
                field: path,
                message: "expected \"before-response\" or \"after-response\", got \(FaultRuleError.render(value))")
        }
        self = moment
    }
}
