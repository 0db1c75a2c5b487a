import HTTPFields

/// What a request's regular header fields (and the default topic) decide, apart from everything
/// else: checks 2, 3, 5 and 6 of `RequestValidator`'s order (duplicate headers, the APNs header
/// values, the topic, the push type against the topic suffix) and the values they parse. A pure
/// function of the header list's names, the values of the `apns-` headers and the default topic,
/// so a connection's `ValidationMemo` reuses it for a push whose fields repeat those of the
/// previous one (a sender notifying many devices sends the same fields to every device token,
/// with at most another `content-length`): see `sameInput(_:defaultTopic:as:defaultTopic:)`.
///
/// A class of constants: the memo hands its checks out as one reference (as a struct of optional
/// strings it was copied field by field through value witnesses, about 200 instructions a push).
package final class HeaderChecks {
    /// `apns-id` when present and a canonical UUID.
    let apnsID: String?
    /// `apns-expiration` as parsed (nil when absent or invalid).
    let expiration: Int64?
    /// `apns-priority` as parsed; 10 when absent, nil when invalid.
    let priority: Int?
    /// `apns-push-type` exactly as sent, and the push type it names (nil when unknown).
    let pushTypeSent: String?
    let sentType: PushType?
    /// `apns-collapse-id` as sent.
    let collapseID: String?
    /// `apns-topic` as sent, else the default topic.
    let topic: String?
    /// The first failure of checks 2 and 3 (they rank before the device token's format).
    let reasonBeforeToken: Reason?
    /// The first failure of checks 5 and 6 (they rank after it).
    let reasonAfterToken: Reason?

    /// Runs the checks on `fields` with `defaultTopic` for a missing `apns-topic`.
    package init(_ fields: [HeaderField], defaultTopic: String?) {
        // 2. Duplicate headers.
        let headers = RequestHeaders(fields)
        var reason: Reason? = headers.hasDuplicates ? .duplicateHeaders : nil
        // 3. Header values, in the order listed in Apple's header table.
        var apnsID: String?
        if let id = headers.apnsID {
            if HeaderRules.isCanonicalUUID(id) { apnsID = id } else if reason == nil { reason = .badMessageID }
        }
        var expiration: Int64?
        if let text = headers.expiration {
            expiration = HeaderRules.expiration(text)
            if expiration == nil && reason == nil { reason = .badExpirationDate }
        }
        var priority: Int? = 10
        if let text = headers.priority {
            priority = HeaderRules.priority(text)
            if priority == nil && reason == nil { reason = .badPriority }
        }
        var sentType: PushType?
        if let text = headers.pushType {
            sentType = HeaderRules.pushType(text)
            if sentType == nil && reason == nil { reason = .invalidPushType }
        }
        if let collapseID = headers.collapseID, !HeaderRules.isValidCollapseID(collapseID), reason == nil {
            reason = .badCollapseID
        }
        // 5. Topic. A default topic comes from the certificate and is trusted as is.
        let topic = headers.topic ?? defaultTopic
        var after: Reason?
        if let sent = headers.topic {
            if !TopicRule.isValid(sent) { after = .badTopic }
        } else if topic == nil {
            after = .missingTopic
        }
        // 6. Push type against the topic suffix: only for a push type that was sent.
        if after == nil, let sentType, let topic, let mismatch = TopicRule.pushTypeMismatch(sentType, topic: topic) {
            after = mismatch
        }
        self.apnsID = apnsID
        self.expiration = expiration
        self.priority = priority
        pushTypeSent = headers.pushType
        self.sentType = sentType
        collapseID = headers.collapseID
        self.topic = topic
        reasonBeforeToken = reason
        reasonAfterToken = after
    }

    /// Whether checks made on `fields` with `defaultTopic` hold for `previous` with
    /// `previousDefaultTopic`: the same default topic and the same names in the same order
    /// (duplicates are decided by names), with the same values where the name starts with
    /// `apns-` (only those values are read). Bytes are compared, not canonical equivalence.
    /// Fields are read in place; identical lists and identical strings (the transport's interned
    /// fields) compare at once.
    package static func sameInput(
        _ fields: [HeaderField], defaultTopic: String?, as previous: [HeaderField],
        defaultTopic previousDefaultTopic: String?
    ) -> Bool {
        guard fields.count == previous.count, UTF8Bytes.equal(defaultTopic, previousDefaultTopic) else { return false }
        return fields.withUnsafeBufferPointer { a in
            previous.withUnsafeBufferPointer { b in
                if a.baseAddress == b.baseAddress { return true }
                for i in 0..<a.count {
                    guard UTF8Bytes.equal(a[i].name, b[i].name) else { return false }
                    if UTF8Bytes.equal(a[i].value, b[i].value) { continue }
                    if UTF8Bytes.with(a[i].name, { HeaderChecks.isAPNsName($0) }) { return false }
                }
                return true
            }
        }
    }

    /// Whether `name` starts with `apns-`.
    @inline(__always)
    private static func isAPNsName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count >= 5 && name[0] == UInt8(ascii: "a") && name[1] == UInt8(ascii: "p") && name[2] == UInt8(ascii: "n")
            && name[3] == UInt8(ascii: "s") && name[4] == UInt8(ascii: "-")
    }
}
