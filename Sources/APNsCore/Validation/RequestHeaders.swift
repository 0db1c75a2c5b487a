/// The APNs request headers picked out of the header list in one pass, plus whether any header
/// name arrived twice (docs/apns-behaviour.md §1.2).
///
/// Values are kept exactly as sent; `HeaderRules` judges them. Headers APNs does not list are
/// ignored (Apple, *Communicating with APNs*), except that they count for `DuplicateHeaders`.
struct RequestHeaders {
    var apnsID: String?
    var expiration: String?
    var priority: String?
    var pushType: String?
    var topic: String?
    var collapseID: String?
    /// True when some header name occurs more than once, `cookie` excepted: HTTP/2 lets a client
    /// split cookies into several fields (RFC 9113 section 8.2.3), so that is not a repeat.
    /// Apple's `DuplicateHeaders` says only "one or more headers are repeated", so every other
    /// name counts, `authorization` and non-APNs headers included (docs/apns-behaviour.md §9 decision).
    var hasDuplicates = false

    init(_ fields: [HeaderField]) {
        for i in fields.indices {
            let field = fields[i]
            let name = field.name
            // Each APNs header name has a distinct length, so one comparison classifies it.
            switch name.utf8.count {
            case 7 where name == "apns-id": Self.store(field.value, in: &apnsID, duplicate: &hasDuplicates)
            case 10 where name == "apns-topic": Self.store(field.value, in: &topic, duplicate: &hasDuplicates)
            case 13 where name == "apns-priority": Self.store(field.value, in: &priority, duplicate: &hasDuplicates)
            case 14 where name == "apns-push-type": Self.store(field.value, in: &pushType, duplicate: &hasDuplicates)
            case 15 where name == "apns-expiration": Self.store(field.value, in: &expiration, duplicate: &hasDuplicates)
            case 16 where name == "apns-collapse-id":
                Self.store(field.value, in: &collapseID, duplicate: &hasDuplicates)
            default:
                // Other headers are few (user-agent, content-length...): compare with earlier names.
                if hasDuplicates || name == "cookie" { continue }
                let length = name.utf8.count
                var j = 0
                while j < i {
                    let other = fields[j].name
                    if other.utf8.count == length && other == name {
                        hasDuplicates = true
                        break
                    }
                    j += 1
                }
            }
        }
    }

    /// Keeps the first value; a second one marks the request as having duplicates.
    @inline(__always)
    private static func store(_ value: String, in slot: inout String?, duplicate: inout Bool) {
        if slot == nil { slot = value } else { duplicate = true }
    }
}
