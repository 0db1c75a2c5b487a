/// What one connection's previous request looked like, so that a request repeating it skips work
/// whose result depends on the repeated bytes alone: parsing the body, checking the device token,
/// redacting `authorization` (the store keeps its own compact copy of each record either way).
///
/// Senders often push the same payload many times in a row (a campaign, a retry, a load test),
/// and a token-authenticated connection sends the same provider token for up to an hour. A
/// body's outcome (its `PayloadFacts`, or the parser's message) is a pure function of its bytes,
/// and parsing it with Foundation's `JSONSerialization` was about a quarter of the instructions
/// per request (callgrind, 25-byte payload); a repeat costs one `memcmp`. A redacted token is a
/// pure function of the header value; a repeat reuses the redacted string. A repeated device
/// token reuses its checked, lowercased form. Anything different is computed as before and
/// replaces what is remembered.
///
/// One per connection, used on that connection's thread only: not thread-safe. It keeps the last
/// body alive until the next one replaces it.
public final class RequestMemo {
    private var body: [UInt8] = []
    private var outcome: PayloadInspector.Outcome?
    private var authorization: String?
    private var redactedAuthorization = ""
    private var rawHeaders: [HeaderField] = []
    private var recordedHeaders: [HeaderField] = []
    private var tokenText: String?
    private var tokenOptions: (exact: Int?, maximum: Int) = (nil, 0)
    private var normalizedToken: String?
    /// Bodies answered from the memo instead of being parsed.
    public private(set) var payloadHits = 0
    /// `authorization` values whose redaction was reused.
    public private(set) var redactionHits = 0

    public init() {}

    /// The outcome of `body`: the remembered one when `body` has the same bytes as the last body
    /// seen, else `inspect(body)`, which is remembered.
    func outcome(of body: [UInt8], inspect: ([UInt8]) -> PayloadInspector.Outcome) -> PayloadInspector.Outcome {
        if let outcome, UTF8Bytes.equal(body, self.body) {
            payloadHits += 1
            return outcome
        }
        let fresh = inspect(body)
        self.body = body
        outcome = fresh
        return fresh
    }

    /// The header list to record for `headers` as received: `authorization` redacted (see
    /// `redacted(_:)`). When the previous request carried the same fields, its recorded list is
    /// returned and nothing is copied to redact (the transport reuses
    /// repeated header strings, so the comparison is mostly of identical storage).
    func recorded(_ headers: [HeaderField]) -> [HeaderField] {
        if UTF8Bytes.equal(headers, rawHeaders) { return recordedHeaders }
        rawHeaders = headers
        recordedHeaders = AuthorizationRedaction.recorded(headers, redact: redacted)
        return recordedHeaders
    }

    /// `DeviceTokenRule.normalized(text, options:)`, reused when `text` and the options repeat.
    func normalizedToken(_ text: Substring, options: ValidationOptions) -> String? {
        if let tokenText, tokenOptions == (options.tokenLength, options.maxTokenLength),
           UTF8Bytes.equal(text, tokenText) {
            return normalizedToken
        }
        normalizedToken = DeviceTokenRule.normalized(text, options: options)
        tokenText = String(text)
        tokenOptions = (options.tokenLength, options.maxTokenLength)
        return normalizedToken
    }

    /// `AuthorizationRedaction.redact(value)`, reused when `value` repeats the last one.
    func redacted(_ value: String) -> String {
        if let authorization, UTF8Bytes.equal(authorization, value) {
            redactionHits += 1
            return redactedAuthorization
        }
        redactedAuthorization = AuthorizationRedaction.redact(value)
        authorization = value
        return redactedAuthorization
    }
}
