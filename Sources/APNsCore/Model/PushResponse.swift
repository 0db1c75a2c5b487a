/// The HTTP/2 response the transport sends for one stream.
///
/// Success: `:status 200`, `apns-id` (plus `apns-unique-id` on sandbox listeners), no body.
/// Error: `:status`, `content-type: application/json`, `apns-id`, then the JSON body
/// (Apple, *Handling notification responses from APNs*; docs/apns-behaviour.md §2).
public struct PushResponse: Sendable, Equatable {
    /// HTTP status code.
    public var status: Int
    /// Response headers other than `:status`, in the order to send them, except the IDs the
    /// gateway generated: those follow in `uuidHeaders` (`allHeaders` gives every field).
    public var headers: [HeaderField]
    /// The body bytes; empty for a 200.
    public var body: [UInt8]
    /// Generated IDs, sent after `headers`: the gateway's own `apns-id` and `apns-unique-id`
    /// values, kept as bits and spelled by the transport (no `String` each).
    public var uuidHeaders: UUIDHeaderFields

    public init(
        status: Int, headers: [HeaderField], body: [UInt8] = [], uuidHeaders: UUIDHeaderFields = UUIDHeaderFields()
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.uuidHeaders = uuidHeaders
    }

    /// Every header field in the order sent: `headers`, then `uuidHeaders` spelled.
    public var allHeaders: [HeaderField] { uuidHeaders.isEmpty ? headers : headers + uuidHeaders.fields }
}
