/// What a request to an APNs listener is, by its path (docs/broadcast.md §4): a device push
/// (`/3/device/...`, and anything else the channel and broadcast APIs do not claim), a
/// channel-management request (`/1/...`) or a broadcast send (`/4/...`, or `4/...` as Apple's
/// sample writes it). A record's `kind`, and the delivery filter's.
public enum RequestKind: String, Sendable, Hashable, CaseIterable, Codable {
    case push, channel, broadcast

    /// The kind of a request with this `:path`; reads at most three bytes.
    @inline(__always)
    public init(path: String) {
        var bytes = path.utf8.makeIterator()
        var first = bytes.next()
        if first == UInt8(ascii: "/") {
            first = bytes.next()
        } else if first != UInt8(ascii: "4") {
            self = .push
            return
        }
        guard first == UInt8(ascii: "1") || first == UInt8(ascii: "4"), bytes.next() == UInt8(ascii: "/") else {
            self = .push
            return
        }
        self = first == UInt8(ascii: "1") ? .channel : .broadcast
    }
}
