/// The limits the binary gateway enforces on a notification (docs/legacy-binary.md §5). The
/// defaults are what the gateway and the clients of the time enforced.
public struct BinaryLimits: Equatable, Sendable {
    /// The largest token length that may be configured: command 2's item 1 is "up to 100 bytes".
    public static let largestTokenLength = 100

    /// The device token's length in bytes that a notification must have (32 by default, 1...100);
    /// any other non-zero length is status 5, invalid token size.
    public var tokenLength: Int
    /// The largest payload in bytes of commands 0 and 1 (256 by default); more is status 7.
    public var simplePayloadLimit: Int
    /// The largest payload in bytes of command 2 (2048 by default); more is status 7.
    public var framedPayloadLimit: Int
    /// The largest command-2 frame length (the u32 after the command byte) read, 131,072 bytes by
    /// default: a payload item of the largest u16 length and the other items fit, so an oversized
    /// payload is still status 7 naming its identifier. A longer frame is status 128 with
    /// identifier 0 as soon as its header is read, and is never buffered: memory stays bounded.
    public var frameLengthLimit: Int

    /// Creates limits; the defaults are Apple's.
    public init(
        tokenLength: Int = 32, simplePayloadLimit: Int = 256, framedPayloadLimit: Int = 2048,
        frameLengthLimit: Int = 131_072
    ) {
        self.tokenLength = tokenLength
        self.simplePayloadLimit = simplePayloadLimit
        self.framedPayloadLimit = framedPayloadLimit
        self.frameLengthLimit = frameLengthLimit
    }

    /// The payload limit of `command`'s notifications.
    public func payloadLimit(for command: BinaryCommand) -> Int {
        command == .framed ? framedPayloadLimit : simplePayloadLimit
    }

    /// What is wrong with these limits, worded for a configuration error, or `nil` when they are
    /// usable: a token length outside 1...100, a payload limit below 1 or above 65,535, a frame
    /// length limit below 16.
    public var problem: String? {
        if !(1...Self.largestTokenLength).contains(tokenLength) {
            return "tokenLength must be 1 to \(Self.largestTokenLength) bytes, not \(tokenLength)"
        }
        for (name, value) in [("payloadLimit", simplePayloadLimit), ("framedPayloadLimit", framedPayloadLimit)]
        where !(1...Int(UInt16.max)).contains(value) {
            return "\(name) must be 1 to 65535 bytes, not \(value)"
        }
        if frameLengthLimit < 16 { return "frameLengthLimit must be at least 16 bytes, not \(frameLengthLimit)" }
        return nil
    }
}
