import HTTPFields

/// Everything `mock-apns send` needs, parsed from its arguments by `SendArgumentParser`.
public struct SendOptions: Sendable, Equatable {
    /// The gateway URL, `https://host[:port]` or `http://host[:port]`.
    public var url: String = "https://localhost:2197"
    /// The device token for the path `/3/device/<token>`, sent as given.
    public var deviceToken: String = ""
    /// `apns-topic`, usually the app's bundle id.
    public var topic: String?
    /// `apns-push-type`, e.g. `alert`.
    public var pushType: String?
    /// `apns-priority` (APNs accepts 10, 5 and 1).
    public var priority: Int?
    /// `apns-expiration`: seconds since 1970-01-01 UTC; 0 means deliver once or drop.
    public var expiration: Int?
    /// `apns-collapse-id`.
    public var collapseID: String?
    /// `apns-id`, a UUID; the server makes one when absent.
    public var apnsID: String?
    /// The `authorization` header value, e.g. `bearer <JWT>`. This is the seam for provider
    /// tokens: a signer sets it before `SendCommand.execute`.
    public var authorization: String?
    /// `--key`/`--key-id`/`--team-id`: a provider token still to be signed into `authorization`.
    /// `SendCommand.execute` refuses options where this is still set.
    public var providerKey: SendProviderKey?
    /// `--header 'name: value'` fields; each replaces a same-named field from the options above.
    public var extraHeaders: [HeaderField] = []
    /// Server verification and client certificate.
    public var tls = HTTP2ClientTLSOptions()
    /// How many times to send the notification.
    public var count = 1
    /// How many streams to keep open at once.
    public var concurrency = 1
    /// Seconds allowed to connect, and without any byte from the server while waiting for responses.
    public var timeout: Double = 30
    /// The notification payload.
    public var payload: SendPayload = .inline("")
    /// A channel-management request or a broadcast instead of a device push, for the bundle ID
    /// in `topic` (which is then not sent as `apns-topic`); nil for a device push.
    public var channelAction: SendChannelAction?

    /// Options with every default; set `deviceToken` and `payload` at least.
    public init() {}
}
