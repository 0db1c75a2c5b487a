/// The command byte that opens a notification of the legacy binary provider API
/// (docs/legacy-binary.md §2).
public enum BinaryCommand: UInt8, Sendable, CaseIterable {
    /// 0, simple: `|0|tokenLen u16|token|payloadLen u16|payload|`. A bad one is answered by
    /// severing the connection, with no error packet.
    case simple = 0
    /// 1, enhanced: `|1|identifier u32|expiry u32|tokenLen u16|token|payloadLen u16|payload|`.
    case enhanced = 1
    /// 2, framed: `|2|frameLen u32|items…|`, each item `|itemId u8|itemLen u16|data|`.
    case framed = 2

    /// Whether a bad notification of this command is answered with an error packet (1 and 2)
    /// or by severing the connection without one (0).
    public var answersWithErrorPacket: Bool { self != .simple }
}
