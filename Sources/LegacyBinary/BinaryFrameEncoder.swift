/// Writes notifications as a legacy sender does (docs/legacy-binary.md §2), for `mock-apns send
/// --binary`: command 0 and 1 in their fixed layouts, command 2 with items 1 and 2, then 3, 4
/// and 5 when the notification has an identifier, an expiry and a priority (PyAPNs writes all
/// five; node-apn leaves 4 and 5 out when they are defaults).
public enum BinaryFrameEncoder {
    /// The bytes of `notification`; lengths are cut to 65,535 bytes (u16 fields).
    public static func encode(_ notification: BinaryNotification) -> [UInt8] {
        let token = Array(notification.token.prefix(Int(UInt16.max)))
        let payload = Array(notification.payload.prefix(Int(UInt16.max)))
        var out: [UInt8] = [notification.command.rawValue]
        switch notification.command {
        case .simple, .enhanced:
            if notification.command == .enhanced {
                BigEndian.append(notification.identifier ?? 0, to: &out)
                BigEndian.append(notification.expiry ?? 0, to: &out)
            }
            BigEndian.append(UInt16(token.count), to: &out)
            out += token
            BigEndian.append(UInt16(payload.count), to: &out)
            out += payload
        case .framed:
            var items: [UInt8] = []
            func item(_ id: UInt8, _ data: [UInt8]) {
                items.append(id)
                BigEndian.append(UInt16(data.count), to: &items)
                items += data
            }
            item(1, token)
            item(2, payload)
            var number: [UInt8] = []
            if let identifier = notification.identifier {
                BigEndian.append(identifier, to: &number)
                item(3, number)
            }
            if let expiry = notification.expiry {
                number = []
                BigEndian.append(expiry, to: &number)
                item(4, number)
            }
            if let priority = notification.priority { item(5, [priority]) }
            BigEndian.append(UInt32(items.count), to: &out)
            out += items
        }
        return out
    }
}
