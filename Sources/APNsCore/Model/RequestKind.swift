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

    /// The channel a request of this kind names: its `apns-channel-id` header, or the path
    /// segment after `/channels/` (APNSwift's older form, percent-decoded); nil for a device
    /// push and for a channel request naming none.
    public func channelID(path: String, headers: [HeaderField]) -> String? {
        guard self != .push else { return nil }
        if let field = headers.first(where: { $0.name == "apns-channel-id" }) { return field.value }
        guard self == .channel, let range = path.range(of: "/channels/") else { return nil }
        let segment = path[range.upperBound...]
        guard !segment.isEmpty, !segment.contains("/") else { return nil }
        return Self.percentDecoded(segment)
    }

    /// `%XX` escapes decoded (as UTF-8); the text as it is when an escape is malformed.
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            else { return String(text) }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
