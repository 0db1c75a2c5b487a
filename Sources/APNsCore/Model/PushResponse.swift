/// The HTTP/2 response the transport sends for one stream.
///
/// Success: `:status 200`, `apns-id` (plus `apns-unique-id` on sandbox listeners), no body.
/// Error: `:status`, `content-type: application/json`, `apns-id`, then the JSON body
/// (Apple, *Handling notification responses from APNs*; spec section 2).
public struct PushResponse: Sendable, Equatable {
    /// HTTP status code.
    public var status: Int
    /// Response headers other than `:status`, in the order to send them.
    public var headers: [HeaderField]
    /// The body bytes; empty for a 200.
    public var body: [UInt8]

    public init(status: Int, headers: [HeaderField], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
