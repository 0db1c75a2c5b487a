import APNsCore

/// A `DeliveryFilter` prepared to test compact records without decoding them: numbers and
/// codes are compared in place, strings byte by byte (UUIDs and hex spelled out on the stack).
/// Matches exactly the records `DeliveryFilter.matches(_:)` matches on the decoded form.
struct CompactRecordMatcher {
    let filter: DeliveryFilter
    private let token: [UInt8]?
    private let topic: [UInt8]?
    private let pushType: [UInt8]?
    /// The code of the inferred push type the filter's `pushType` names, when it names one.
    private let inferredPushTypeCode: UInt8?
    private let collapseID: [UInt8]?
    private let apnsID: [UInt8]?
    private let reasonCode: UInt8?
    /// True when only `after` is set: every record after it matches.
    let matchesAll: Bool

    init(_ filter: DeliveryFilter) {
        self.filter = filter
        token = filter.token.map { Array($0.utf8) }
        topic = filter.topic.map { Array($0.utf8) }
        pushType = filter.pushType.map { Array($0.utf8) }
        inferredPushTypeCode = filter.pushType.flatMap { PushType(rawValue: $0) }.map { CompactRecord.code($0) }
        collapseID = filter.collapseID.map { Array($0.utf8) }
        apnsID = filter.apnsID.map { Array($0.utf8) }
        reasonCode = filter.reason.map { CompactRecord.code($0) }
        var rest = filter
        rest.after = nil
        matchesAll = rest == DeliveryFilter()
    }

    /// Whether the record stored as `record` with sequence number `seq` passes the filter.
    func matches(_ record: CompactRecord, seq: UInt64) -> Bool {
        if let after = filter.after, seq <= after { return false }
        if matchesAll { return true }
        guard record.withFilterBytes({ matches($0, apnsIDString: $1) }) else { return false }
        // The cause sits past the fault part: read it decoded (unanswered records are few).
        if case .cause(let cause) = filter.unanswered { return record.decoded(seq: seq).unanswered == cause }
        // Kind, channel ID, listener and protocol come from the path, headers and the tail: read
        // decoded (only when asked for).
        if filter.kind != nil || filter.channelID != nil || filter.listener != nil || filter.transportProtocol != nil {
            let decoded = record.decoded(seq: seq)
            if let kind = filter.kind, decoded.kind != kind { return false }
            if let channelID = filter.channelID,
                !DeliveryFilter.namesChannel(decoded.channelID, seq: seq, channelID, createSeq: filter.channelCreateSeq)
            {
                return false
            }
            if let listener = filter.listener, !UTF8Bytes.equal(decoded.listener, listener) { return false }
            if let wanted = filter.transportProtocol, decoded.transportProtocol != wanted { return false }
        }
        return true
    }

    /// The checks past `after`, on the record's bytes (`CompactRecord.withFilterBytes`), its
    /// `apns-id` in `apnsIDString` when that is given.
    private func matches(_ bytes: UnsafeBufferPointer<UInt8>, apnsIDString: UnsafeBufferPointer<UInt8>?) -> Bool {
        precondition(bytes.count > CompactRecord.Offset.variable, "compact record: shorter than its fixed fields")
        if let reasonCode, bytes[CompactRecord.Offset.reason] != reasonCode { return false }
        if let environment = filter.environment,
            (bytes[CompactRecord.Offset.flags] & CompactRecord.Flag.production != 0) != (environment == .production)
        {
            return false
        }
        var r = CompactRecordReader(bytes, at: CompactRecord.Offset.variable)
        let status = r.signed()
        if let wanted = filter.status, status != Int64(wanted) { return false }
        switch filter.unanswered {
        case nil: break
        case .any, .cause:
            // Pending records (no cause yet) are not unanswered.
            if status != 0 || bytes[CompactRecord.Offset.flags] & CompactRecord.Flag.unanswered == 0 { return false }
        case .pending:
            if status != 0 || bytes[CompactRecord.Offset.flags] & CompactRecord.Flag.unanswered != 0 { return false }
        }
        guard token != nil || topic != nil || pushType != nil || collapseID != nil || apnsID != nil else { return true }
        _ = r.varint()  // connection id
        _ = r.signed()  // stream id
        _ = r.signed()  // payload bytes
        r.skipString()  // path
        for _ in 0..<(2 * r.count()) { r.skipString() }  // header names and values
        let apnsIDAt = r.position
        r.skipString()
        let tokenAt = r.position
        r.skipString()
        let topicAt = r.position
        r.skipString()
        let pushTypeAt = r.position
        r.skipString()
        let collapseAt = r.position
        if let token, !Self.equal(bytes, at: tokenAt, token) { return false }
        if let topic, !Self.equal(bytes, at: topicAt, topic) { return false }
        if let pushType, !Self.equal(bytes, at: pushTypeAt, pushType),
            inferredPushTypeCode == nil || bytes[CompactRecord.Offset.pushType] != inferredPushTypeCode
        {
            return false
        }
        if let collapseID, !Self.equal(bytes, at: collapseAt, collapseID) { return false }
        if let apnsID {
            let equal =
                apnsIDString.map { Self.equal($0, at: 0, apnsID, ignoringASCIICase: true) }
                ?? Self.equal(bytes, at: apnsIDAt, apnsID, ignoringASCIICase: true)
            if !equal { return false }
        }
        return true
    }

    /// Whether the string at `position` is `wanted`: the same bytes; with `ignoringASCIICase`,
    /// the stored string's ASCII uppercase letters compare as lowercase (`wanted` is lowercase
    /// already).
    private static func equal(
        _ bytes: UnsafeBufferPointer<UInt8>, at position: Int, _ wanted: [UInt8],
        ignoringASCIICase: Bool = false
    ) -> Bool {
        CompactRecordReader.withUTF8(in: bytes, at: position) { stored in
            guard let stored else { return false }
            if ignoringASCIICase {
                return stored.count == wanted.count
                    && zip(stored, wanted).allSatisfy { a, b in
                        (a >= 0x41 && a <= 0x5A ? a + 0x20 : a) == b
                    }
            }
            // Bytes, as `DeliveryFilter.matches`: canonically equivalent text sent differently
            // (a decomposed `é`, the Kelvin sign) is another value.
            return stored.elementsEqual(wanted)
        }
    }
}
