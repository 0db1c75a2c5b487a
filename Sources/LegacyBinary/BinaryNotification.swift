/// One notification of the legacy binary provider API as read from the stream, before the
/// APNs checks (registry, topic, payload JSON) judge it (docs/legacy-binary.md §2).
public struct BinaryNotification: Equatable, Sendable {
    /// The command it came in.
    public var command: BinaryCommand
    /// The notification identifier (command 1's field, command 2's item 3); `nil` when the
    /// notification carried none (command 0, command 2 without item 3). Error packets name a
    /// notification without one as 0.
    public var identifier: UInt32?
    /// The expiry in UNIX seconds (command 1's field, command 2's item 4; 0 = do not store);
    /// `nil` when not given.
    public var expiry: UInt32?
    /// The priority (command 2's item 5: 10 or 5); `nil` when not given, which means 10.
    public var priority: UInt8?
    /// The device token's bytes.
    public var token: [UInt8]
    /// The payload's bytes (JSON, not NUL-terminated).
    public var payload: [UInt8]
    /// How many bytes of the stream the notification took, command byte included.
    public var byteCount: Int

    /// Creates a notification from its parts.
    public init(
        command: BinaryCommand, identifier: UInt32? = nil, expiry: UInt32? = nil, priority: UInt8? = nil,
        token: [UInt8], payload: [UInt8], byteCount: Int = 0
    ) {
        self.command = command
        self.identifier = identifier
        self.expiry = expiry
        self.priority = priority
        self.token = token
        self.payload = payload
        self.byteCount = byteCount
    }

    /// The priority it is delivered at: item 5 when given, else 10 (Apple's *Legacy
    /// Notification Format*: "10 is assumed").
    public var effectivePriority: UInt8 { priority ?? 10 }

    /// The token as lowercase hexadecimal, the form the HTTP/2 path and the registry use.
    public var tokenHex: String { BinaryHex.encode(token) }
}
