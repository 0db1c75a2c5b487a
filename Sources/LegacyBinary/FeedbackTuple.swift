/// One entry the feedback service sends: `|timestamp u32|tokenLen u16|token|`, big-endian; the
/// timestamp is a time_t, seconds since 1970 UTC, when the device stopped taking the app's
/// notifications (docs/legacy-binary.md §4).
public struct FeedbackTuple: Equatable, Sendable {
    /// Seconds since 1970 UTC.
    public var timestamp: UInt32
    /// The device token's bytes (at most 65,535).
    public var token: [UInt8]

    /// Creates the tuple of `token` unregistered at `timestamp`.
    public init(timestamp: UInt32, token: [UInt8]) {
        self.timestamp = timestamp
        self.token = token
    }

    /// The tuple's bytes on the wire. A token longer than 65,535 bytes is cut to that length
    /// (the length field is a u16).
    public var bytes: [UInt8] {
        let token = self.token.prefix(Int(UInt16.max))
        var out: [UInt8] = []
        out.reserveCapacity(6 + token.count)
        BigEndian.append(timestamp, to: &out)
        BigEndian.append(UInt16(token.count), to: &out)
        out.append(contentsOf: token)
        return out
    }

    /// The tuples in `bytes`, read in order, and how many trailing bytes formed no whole tuple.
    public static func decodeAll(_ bytes: [UInt8]) -> (tuples: [FeedbackTuple], leftover: Int) {
        var tuples: [FeedbackTuple] = []
        var offset = 0
        while bytes.count - offset >= 6 {
            let length = Int(BigEndian.uint16(bytes, at: offset + 4))
            guard bytes.count - offset >= 6 + length else { break }
            tuples.append(
                FeedbackTuple(
                    timestamp: BigEndian.uint32(bytes, at: offset),
                    token: Array(bytes[offset + 6..<offset + 6 + length])))
            offset += 6 + length
        }
        return (tuples, bytes.count - offset)
    }
}
