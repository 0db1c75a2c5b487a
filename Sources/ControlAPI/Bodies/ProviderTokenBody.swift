/// The body of `POST /v1/validate/provider-token`: `{"token": "<JWT or bearer JWT>", "topic":
/// "com.example.app", "listener": "default"}`; `topic` and `listener` optional (the first
/// listener; without a topic the key's topic scope is not checked). Other keys are refused.
struct ProviderTokenBody: Decodable, Equatable {
    var token: String
    var topic: String?
    var listener: String?

    /// The body's shape, for messages.
    static let form = #"a JSON object like {"token": "eyJ...", "topic": "com.example.app", "listener": "default"}"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, topic, listener
    }
}
