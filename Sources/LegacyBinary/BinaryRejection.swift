/// A notification the binary gateway refuses, and how the connection ends because of it
/// (docs/legacy-binary.md §3): an error packet then close for commands 1 and 2 (and for a
/// command byte that is none of Apple's), a close with no packet for command 0.
public struct BinaryRejection: Equatable, Sendable {
    /// The command byte that opened the refused notification (it may be none of Apple's).
    public var commandByte: UInt8
    /// Why it was refused.
    public var status: BinaryStatus
    /// The refused notification's identifier, 0 when it had none or it could not be read.
    public var identifier: UInt32
    /// The notification as read, when its frame could be parsed (recorded; `nil` for an
    /// unparsable frame).
    public var notification: BinaryNotification?

    /// Creates a rejection.
    public init(commandByte: UInt8, status: BinaryStatus, identifier: UInt32, notification: BinaryNotification?) {
        self.commandByte = commandByte
        self.status = status
        self.identifier = identifier
        self.notification = notification
    }

    /// The refusal of an already parsed `notification` for `status` (the APNs checks' verdict:
    /// registry, topic, payload).
    public init(_ notification: BinaryNotification, status: BinaryStatus) {
        self.init(
            commandByte: notification.command.rawValue, status: status, identifier: notification.identifier ?? 0,
            notification: notification)
    }

    /// The error packet to write before closing, or `nil` when the connection is severed without
    /// one (command 0).
    public var errorPacket: BinaryErrorPacket? {
        commandByte == BinaryCommand.simple.rawValue ? nil : BinaryErrorPacket(status: status, identifier: identifier)
    }
}
