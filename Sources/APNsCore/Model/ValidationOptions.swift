/// The knobs of request validation where Apple is silent (docs/apns-behaviour.md §9).
public struct ValidationOptions: Sendable, Equatable {
    /// When set, device tokens must have exactly this many hex characters (e.g. 64).
    /// Default `nil`: any non-empty even length up to `maxTokenLength`.
    public var tokenLength: Int?
    /// The longest accepted device token, in hex characters. Default 200.
    public var maxTokenLength: Int
    /// When true, payload lints become 400 rejections with the closest Apple reason.
    public var lintsAsErrors: Bool
    /// The reason answered for a body that is not a JSON object. Default `PayloadEmpty`.
    public var invalidPayloadReason: Reason
    /// Open or closed device registry.
    public var registry: RegistryMode

    public init(
        tokenLength: Int? = nil, maxTokenLength: Int = 200, lintsAsErrors: Bool = false,
        invalidPayloadReason: Reason = .payloadEmpty, registry: RegistryMode = .open
    ) {
        self.tokenLength = tokenLength
        self.maxTokenLength = maxTokenLength
        self.lintsAsErrors = lintsAsErrors
        self.invalidPayloadReason = invalidPayloadReason
        self.registry = registry
    }
}
