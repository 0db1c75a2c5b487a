/// The legacy binary provider API's 6-byte error-response packet: `|8 u8|status u8|identifier
/// u32|`, big-endian (docs/legacy-binary.md §3). Written before the server closes the connection.
public struct BinaryErrorPacket: Equatable, Sendable {
    /// The packet's command byte, 8.
    public static let command: UInt8 = 8
    /// The packet's length in bytes, 6.
    public static let length = 6

    /// Why the notification failed (or 10, shutdown).
    public var status: BinaryStatus
    /// The identifier of the bad notification (0 when it had none); for status 10, that of the
    /// last notification accepted.
    public var identifier: UInt32

    /// Creates the packet for `status` naming `identifier`.
    public init(status: BinaryStatus, identifier: UInt32) {
        self.status = status
        self.identifier = identifier
    }

    /// Reads a packet from exactly 6 bytes; `nil` when the length, the command byte or the
    /// status is not one of Apple's.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length, bytes[0] == Self.command, let status = BinaryStatus(rawValue: bytes[1])
        else { return nil }
        self.status = status
        self.identifier = BigEndian.uint32(bytes, at: 2)
    }

    /// The six bytes on the wire.
    public var bytes: [UInt8] {
        var out: [UInt8] = [Self.command, status.rawValue]
        BigEndian.append(identifier, to: &out)
        return out
    }
}
