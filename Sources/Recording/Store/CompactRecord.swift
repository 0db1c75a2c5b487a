import APNsCore

/// A `DeliveryRecord` as the store keeps it: one run of bytes holding every field, about a
/// quarter of the memory of the record itself (whose strings, arrays and optionals are each a
/// separate allocation or a wide inline slot). Lossless: `decoded(seq:)` gives back a record
/// equal to the one encoded, with the `seq` the store passes (sequence numbers are not stored:
/// the ring position says them).
///
/// Layout, front to back (`CompactRecordWriter` for the integer and string forms):
///
/// | bytes | field |
/// |---|---|
/// | 1 | flags: environment, which optional numbers and parts follow (`Flag`) |
/// | 3 | answered reason, verdict reason, inferred push type: 0 for none, else 1 + the case index |
/// | 8 | `receivedAt`, the bits of the `Double` |
/// | varints | status (signed), connection id, stream id (signed), payload bytes (signed) |
/// | string | path: `/3/device/` as a table code plus the token, hex-packed when it is hex |
/// | varint, strings | header count, then name and value of each |
/// | strings | `apnsID`, then the filter's verdict strings: device token, topic, push type sent, collapse id, verdict apns-id |
/// | strings | listener, method, unique id |
/// | signed varints | timestamp, priority, expiration, each when its flag is set |
/// | varint, strings | lint count, lints; then the payload error |
/// | identity | when flagged: kind, key id, team id, issued-at (8 bytes, when flagged), subject, topic count + 1 (0: none) and topics, verdict |
/// | fault | when flagged: rule id, action, description |
/// | 1 | when flagged: the `UnansweredCause` index (a record corrected by `DeliveryStore.markUnanswered`) |
/// | varint, bytes | the payload |
///
/// Strings repeat cheaply: the device token points back into the path, the topic, push type,
/// collapse id and apns-id into the headers they came from (`CompactStringTag.reference`).
/// The fields filters look at come before the bulky tail, so `CompactRecordMatcher` reads them
/// without decoding the record.
///
/// The bytes live in a `RecordChunk` shared with the records stored around it; a
/// `CompactRecord` is a reference to the chunk and the record's place in it (32 bytes).
///
/// A *repeat* (a push that repeats its connection's previous one but for its receive time,
/// stream id and generated IDs) is stored as a delta of about 60 bytes
/// (`CompactRecordTemplate.writeDelta`) plus a reference to its model, the full record it was
/// made against, which keeps the model's chunk alive after the model itself has left the ring.
/// Its bytes are written out again on each read (`withBytes`), so every reader sees full records;
/// filters read its model's bytes and its own `apns-id` in place (`withFilterBytes`).
/// Why: a record of a 100-byte payload is about 270 bytes; a load test repeating one push grew
/// the store by that much per push, and the page faults of that growth cost some 15% of the
/// throughput at `h2load -c 4 -m 100` (bench/README.md, "Where it stands (fifth round)",
/// "Repeats kept as deltas").
package struct CompactRecord: Sendable {
    /// The chunk holding the bytes (a repeat's delta); kept alive by this reference.
    let chunk: RecordChunk
    private let offset: UInt32
    private let length: UInt32
    /// A repeat's model: its chunk, offset and length; nil for a full record.
    private let modelChunk: RecordChunk?
    private let modelOffset: UInt32
    private let modelLength: UInt32

    /// The record at `offset` in `chunk`, `count` bytes long (already written there).
    /// `corrected`: it replaces a stored record (`DeliveryStore.markUnanswered`, `markAnswered`),
    /// so it is no repeat's model (`isCorrection`).
    init(chunk: RecordChunk, offset: Int, count: Int, corrected: Bool = false) {
        self.chunk = chunk
        self.offset = UInt32(offset)
        length = UInt32(count)
        modelChunk = nil
        // A full record has no model: the field says whether it is a correction.
        modelOffset = corrected ? 1 : 0
        modelLength = 0
    }

    /// A repeat of `model` (a full record), whose delta (`CompactRecordTemplate.writeDelta`) is
    /// at `offset` in `chunk`, `deltaCount` bytes long (already written there).
    init(repeating model: CompactRecord, chunk: RecordChunk, offset: Int, deltaCount: Int) {
        precondition(!model.isRepeat, "CompactRecord: a repeat's model is a full record")
        self.chunk = chunk
        self.offset = UInt32(offset)
        length = UInt32(deltaCount)
        modelChunk = model.chunk
        modelOffset = model.offset
        modelLength = model.length
    }

    /// Whether this is stored as a delta of another record.
    var isRepeat: Bool { modelChunk != nil }

    /// Whether this replaced a stored record (a correction). A template was made against the
    /// bytes it replaced, and the two can be the same length (status 200 then 0 plus a cause), so
    /// a repeat of it would write its delta over the wrong layout: `append(repeating:)` refuses it.
    var isCorrection: Bool { modelChunk == nil && modelOffset == 1 }

    /// A record on its own, in a chunk of exactly its size.
    init(bytes: [UInt8]) {
        let chunk = RecordChunk(capacity: bytes.count)
        let offset = chunk.claim(bytes.count)
        bytes.withUnsafeBytes { (chunk.base + offset).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        self.init(chunk: chunk, offset: offset, count: bytes.count)
    }

    /// The encoded size in bytes (of the whole record, for a repeat too).
    var count: Int {
        guard let modelChunk else { return Int(length) }
        return withExtendedLifetime((chunk, modelChunk)) {
            CompactRecordTemplate.materializedCount(delta: deltaBytes, modelCount: Int(modelLength))
        }
    }

    /// Bytes held for this record in its chunk: the record, or a repeat's delta.
    var storedCount: Int { Int(length) }

    /// A copy of the encoded bytes.
    var bytes: [UInt8] { withBytes { Array($0) } }

    /// Calls `body` with the encoded bytes, valid only during the call. A repeat's bytes are
    /// written out for the call (on the stack for usual sizes).
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard let modelChunk else {
            return try withExtendedLifetime(chunk) {
                try body(
                    UnsafeBufferPointer(
                        start: (chunk.base + Int(offset)).assumingMemoryBound(to: UInt8.self),
                        count: Int(length)))
            }
        }
        return try withExtendedLifetime((chunk, modelChunk)) {
            let delta = deltaBytes
            let model = modelBytes(in: modelChunk)
            let count = CompactRecordTemplate.materializedCount(delta: delta, modelCount: model.count)
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
                CompactRecordTemplate.materialize(
                    delta: delta, model: model, to: UnsafeMutableRawPointer(buffer.baseAddress!))
                return try body(UnsafeBufferPointer(buffer))
            }
        }
    }

    /// Calls `body` with what a filter reads (`CompactRecordMatcher`), valid only during the call,
    /// without writing a repeat out: bytes holding this record's status, reason, environment,
    /// device token, topic, push types and collapse id (a repeat's model's bytes: the repeat's
    /// values of those fields are its model's), and, when its `apns-id` is not the one in those
    /// bytes (a repeat's generated one), that `apns-id` as a stored string (a packed UUID, read
    /// with `CompactRecordReader`); nil when the bytes hold it.
    /// Why: filters scan the ring under the store's lock, so pushes wait while they run; writing
    /// every repeat out made a filtered scan of 100,000 repeats 2.5 to 5 times as long as on full
    /// records (20-45 ms against 5-20 ms for one `GET /v1/deliveries?apnsId=`, `token`, `status`).
    func withFilterBytes<R>(
        _ body: (_ bytes: UnsafeBufferPointer<UInt8>, _ apnsID: UnsafeBufferPointer<UInt8>?) throws -> R
    )
        rethrows -> R
    {
        guard let modelChunk else { return try withBytes { try body($0, nil) } }
        return try withExtendedLifetime((chunk, modelChunk)) {
            let model = modelBytes(in: modelChunk)
            let apnsID = CompactRecordTemplate.rewrittenAPNsID(delta: deltaBytes).map {
                UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: $0.count)
            }
            return try body(model, apnsID)
        }
    }

    /// A repeat's model's bytes in `modelChunk` (its `modelChunk`); valid while that lives.
    private func modelBytes(in modelChunk: RecordChunk) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(
            start: (modelChunk.base + Int(modelOffset)).assumingMemoryBound(to: UInt8.self),
            count: Int(modelLength))
    }

    /// A repeat's delta in its chunk; valid while `chunk` lives.
    private var deltaBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: chunk.base + Int(offset), count: Int(length))
    }

    /// Bits of the first byte.
    enum Flag {
        static let production: UInt8 = 1 << 0
        static let timestamp: UInt8 = 1 << 1
        static let priority: UInt8 = 1 << 2
        static let expiration: UInt8 = 1 << 3
        static let identity: UInt8 = 1 << 4
        static let identityIssuedAt: UInt8 = 1 << 5
        static let fault: UInt8 = 1 << 6
        /// The stream ended unanswered: the cause's index follows the fault part.
        static let unanswered: UInt8 = 1 << 7
    }

    /// Offsets of the fixed-width fields.
    enum Offset {
        static let flags = 0
        static let reason = 1
        static let verdictReason = 2
        static let pushType = 3
        static let receivedAt = 4
        /// The first variable-length field.
        static let variable = 12
    }

    /// Encodes `record` (its `seq` is not kept) into a chunk of its own. The store does not use
    /// this: it copies `withEncoded`'s bytes into its current chunk.
    init(_ record: borrowing DeliveryRecord) {
        self = CompactRecord.encoded(record).record
    }

    /// Encodes `record` into a chunk of its own, and says where the fields that change between
    /// otherwise equal pushes landed, for `CompactRecordTemplate`.
    static func encoded(_ record: borrowing DeliveryRecord) -> (record: CompactRecord, landmarks: Landmarks) {
        withEncoded(record) { bytes, landmarks in (CompactRecord(bytes: Array(bytes)), landmarks) }
    }

    /// Calls `body` with `record` encoded (valid only during the call) and its landmarks. On the
    /// request path: about a microsecond, in a scratch buffer on the stack for usual records.
    ///
    /// `ids`: the answered `apns-id` and `apns-unique-id` as the bits the gateway generated them
    /// from, when it did; they are written as their text would be (a packed UUID), and the
    /// record's `apnsID` / `uniqueID` text is then not read (nothing to spell, nothing to parse).
    package static func withEncoded<R>(
        _ record: borrowing DeliveryRecord, ids: GeneratedIDs = GeneratedIDs(),
        _ body: (UnsafeBufferPointer<UInt8>, Landmarks) -> R
    ) -> R {
        let texts = VerdictTexts(record.verdict, identity: record.identity)
        let size = CompactRecord.maximumSize(of: record, texts: texts, ids: ids)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { buffer in
            var w = CompactRecordWriter(buffer)
            let landmarks = CompactRecord.write(record, texts: texts, ids: ids, to: &w)
            return body(UnsafeBufferPointer(rebasing: buffer[0..<w.position]), landmarks)
        }
    }

    /// Generated IDs given by their bits (`withEncoded`); nil: the record's text is written.
    package struct GeneratedIDs {
        package var apnsID: UUIDGenerator.Bits?
        package var uniqueID: UUIDGenerator.Bits?

        package init(apnsID: UUIDGenerator.Bits? = nil, uniqueID: UUIDGenerator.Bits? = nil) {
            self.apnsID = apnsID
            self.uniqueID = uniqueID
        }
    }

    /// The text fields of the verdict and of the credential identity, read once: each read of
    /// their shared boxes is a dynamic exclusivity check and a retain, and the encoder looks at
    /// each field twice (size bound, then write).
    private struct VerdictTexts {
        let deviceToken: String?
        let topic: String?
        let pushTypeSent: String?
        let collapseID: String?
        let apnsID: String?
        let lints: [String]
        let payloadError: String?
        let identity: IdentityTexts?

        init(_ verdict: borrowing ValidationResult, identity: CredentialIdentity?) {
            deviceToken = verdict.deviceToken
            topic = verdict.topic
            pushTypeSent = verdict.pushTypeSent
            collapseID = verdict.collapseID
            apnsID = verdict.apnsID
            lints = verdict.lints
            payloadError = verdict.payloadError
            self.identity = identity.map(IdentityTexts.init)
        }
    }

    /// `CredentialIdentity`'s fields, read once (`VerdictTexts`).
    private struct IdentityTexts {
        let kind: String
        let keyID: String?
        let teamID: String?
        let issuedAt: Double?
        let subject: String?
        let topics: [String]?
        let verdict: String

        init(_ identity: CredentialIdentity) {
            kind = identity.kind
            keyID = identity.keyID
            teamID = identity.teamID
            issuedAt = identity.issuedAt
            subject = identity.subject
            topics = identity.topics
            verdict = identity.verdict
        }
    }

    /// Where `write` put the per-push fields: the stream id's varint (`streamID`, a byte range),
    /// and the string tags of the answered `apns-id` and of `apns-unique-id` (nil when absent).
    /// `receivedAt` is always at `Offset.receivedAt`.
    package struct Landmarks {
        var streamID: Range<Int>
        var apnsID: Int
        var uniqueID: Int?
    }

    private static func write(
        _ record: borrowing DeliveryRecord, texts: VerdictTexts, ids: GeneratedIDs,
        to w: inout CompactRecordWriter
    ) -> Landmarks {
        let verdict = record.verdict
        var flags: UInt8 = record.environment == .production ? Flag.production : 0
        if verdict.timestamp != nil { flags |= Flag.timestamp }
        if verdict.priority != nil { flags |= Flag.priority }
        if verdict.expiration != nil { flags |= Flag.expiration }
        if let identity = texts.identity {
            flags |= Flag.identity
            if identity.issuedAt != nil { flags |= Flag.identityIssuedAt }
        }
        if record.fault != nil { flags |= Flag.fault }
        if record.unanswered != nil { flags |= Flag.unanswered }
        w.byte(flags)
        w.byte(code(record.reason))
        w.byte(code(verdict.reason))
        w.byte(code(verdict.pushType))
        w.fixed64(record.receivedAt.bitPattern)
        w.signed(Int64(record.status))
        w.varint(record.connectionID)
        let streamStart = w.position
        w.signed(Int64(record.streamID))
        let streamID = streamStart..<w.position
        w.signed(Int64(record.payloadBytes))

        // The path, then the token it carries (the verdict's token is usually those very bytes).
        var tokenAt: Int?
        if let path = w.prefixed(record.path, prefix: CompactStringTable.devicePathPrefix, sameRest: texts.deviceToken)
        {
            if path.same { tokenAt = path.rest }
        } else {
            w.string(record.path)
        }

        // Headers; remember where the values verdict fields repeat are.
        var topicAt: Int?, pushTypeAt: Int?, collapseAt: Int?, apnsIDAt: Int?
        var topicText: String?, pushTypeText: String?, collapseText: String?, apnsIDText: String?
        w.varint(UInt64(record.headers.count))
        for header in record.headers {
            let name = w.string(header.name).code
            let at = w.string(header.value).at
            switch name {
            case CompactStringTable.apnsTopic where topicAt == nil: (topicAt, topicText) = (at, header.value)
            case CompactStringTable.apnsPushType where pushTypeAt == nil:
                (pushTypeAt, pushTypeText) = (at, header.value)
            case CompactStringTable.apnsCollapseID where collapseAt == nil:
                (collapseAt, collapseText) = (at, header.value)
            case CompactStringTable.apnsID where apnsIDAt == nil: (apnsIDAt, apnsIDText) = (at, header.value)
            default: break
            }
        }
        // A generated apns-id is a packed UUID: no header or verdict text can be the same bytes
        // unless one is a valid apns-id, and then the gateway echoes it instead of generating.
        // Should one be there all the same, the bits are spelled and compared as text.
        let answeredIDAt: Int
        if let bits = ids.apnsID, apnsIDAt == nil, texts.apnsID == nil {
            answeredIDAt = w.position
            w.uuid(bits)
        } else {
            answeredIDAt = w.string(ids.apnsID?.text ?? record.apnsID, sameAs: apnsIDText, at: apnsIDAt)
        }

        // The verdict strings filters compare.
        let token = texts.deviceToken
        w.string(token, sameAs: tokenAt == nil ? nil : token, at: tokenAt)
        w.string(texts.topic, sameAs: topicText, at: topicAt)
        w.string(texts.pushTypeSent, sameAs: pushTypeText, at: pushTypeAt)
        w.string(texts.collapseID, sameAs: collapseText, at: collapseAt)
        if let verdictID = texts.apnsID {
            w.string(verdictID, sameAs: ids.apnsID?.text ?? record.apnsID, at: answeredIDAt)
        } else {
            w.byte(CompactStringTag.absent)
        }

        w.string(record.listener)
        w.string(record.method)
        let uniqueIDAt: Int?
        if let bits = ids.uniqueID {
            uniqueIDAt = w.position
            w.uuid(bits)
        } else {
            uniqueIDAt = record.uniqueID == nil ? nil : w.position
            w.string(record.uniqueID)
        }
        if let timestamp = verdict.timestamp { w.signed(timestamp) }
        if let priority = verdict.priority { w.signed(Int64(priority)) }
        if let expiration = verdict.expiration { w.signed(expiration) }
        w.varint(UInt64(texts.lints.count))
        for lint in texts.lints { w.string(lint) }
        w.string(texts.payloadError)

        if let identity = texts.identity {
            w.string(identity.kind)
            w.string(identity.keyID)
            w.string(identity.teamID)
            if let issuedAt = identity.issuedAt { w.fixed64(issuedAt.bitPattern) }
            w.string(identity.subject)
            if let topics = identity.topics {
                w.varint(UInt64(topics.count) + 1)
                for topic in topics { w.string(topic) }
            } else {
                w.varint(0)
            }
            w.string(identity.verdict)
        }
        if let fault = record.fault {
            w.string(fault.ruleID)
            w.string(fault.action)
            w.string(fault.description)
        }
        if let unanswered = record.unanswered { w.byte(UInt8(unanswered.index)) }
        w.blob(record.payload)
        return Landmarks(streamID: streamID, apnsID: answeredIDAt, uniqueID: uniqueIDAt)
    }

    /// The record with sequence number `seq`.
    package func decoded(seq: UInt64) -> DeliveryRecord {
        withBytes { CompactRecord.decode($0, seq: seq) }
    }

    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>, seq: UInt64) -> DeliveryRecord {
        var r = CompactRecordReader(bytes)
        let flags = r.byte()
        let reason = CompactRecord.reason(r.byte())
        let verdictReason = CompactRecord.reason(r.byte())
        let pushTypeCode = r.byte()
        let receivedAt = Double(bitPattern: r.fixed64())
        let status = Int(r.signed())
        let connectionID = r.varint()
        let streamID = Int32(truncatingIfNeeded: r.signed())
        let payloadBytes = Int(r.signed())
        let path = r.string() ?? ""
        var headers: [HeaderField] = []
        let headerCount = r.count()
        headers.reserveCapacity(headerCount)
        for _ in 0..<headerCount {
            let name = r.string() ?? ""
            headers.append(HeaderField(name: name, value: r.string() ?? ""))
        }
        let apnsID = r.string() ?? ""
        var verdict = ValidationResult(reason: verdictReason)
        verdict.deviceToken = r.string()
        verdict.topic = r.string()
        verdict.pushTypeSent = r.string()
        verdict.collapseID = r.string()
        verdict.apnsID = r.string()
        verdict.pushType = CompactRecord.pushType(pushTypeCode)
        let listener = r.string() ?? ""
        let method = r.string() ?? ""
        let uniqueID = r.string()
        if flags & Flag.timestamp != 0 { verdict.timestamp = r.signed() }
        if flags & Flag.priority != 0 { verdict.priority = Int(r.signed()) }
        if flags & Flag.expiration != 0 { verdict.expiration = r.signed() }
        let lintCount = r.count()
        verdict.lints.reserveCapacity(lintCount)
        for _ in 0..<lintCount { verdict.lints.append(r.string() ?? "") }
        verdict.payloadError = r.string()

        var identity: CredentialIdentity?
        if flags & Flag.identity != 0 {
            let kind = r.string() ?? ""
            let keyID = r.string()
            let teamID = r.string()
            let issuedAt = flags & Flag.identityIssuedAt != 0 ? Double(bitPattern: r.fixed64()) : nil
            let subject = r.string()
            var topics: [String]?
            let topicCount = r.count()
            if topicCount > 0 {
                topics = []
                topics!.reserveCapacity(topicCount - 1)
                for _ in 0..<(topicCount - 1) { topics!.append(r.string() ?? "") }
            }
            identity = CredentialIdentity(
                kind: kind, keyID: keyID, teamID: teamID, issuedAt: issuedAt,
                subject: subject, topics: topics, verdict: r.string() ?? "")
        }
        var fault: FaultRecord?
        if flags & Flag.fault != 0 {
            let ruleID = r.string() ?? ""
            let action = r.string() ?? ""
            fault = FaultRecord(ruleID: ruleID, action: action, description: r.string() ?? "")
        }
        var unanswered: UnansweredCause?
        if flags & Flag.unanswered != 0 { unanswered = UnansweredCause(index: Int(r.byte())) }
        let payload = r.blob()
        return DeliveryRecord(
            seq: seq, receivedAt: receivedAt,
            environment: flags & Flag.production != 0 ? .production : .sandbox,
            listener: listener, connectionID: connectionID, streamID: streamID, method: method,
            path: path, verdict: verdict, apnsID: apnsID, uniqueID: uniqueID, headers: headers,
            payload: payload, payloadBytes: payloadBytes, status: status, reason: reason,
            identity: identity, fault: fault, unanswered: unanswered)
    }

    /// True when `other` is this very record (the same bytes in the same chunk).
    func isSame(as other: CompactRecord) -> Bool {
        chunk === other.chunk && offset == other.offset && length == other.length
    }

    /// An upper bound of the encoded size of `record`: every string at its inline size.
    static func maximumSize(of record: borrowing DeliveryRecord) -> Int {
        maximumSize(of: record, texts: VerdictTexts(record.verdict, identity: record.identity), ids: GeneratedIDs())
    }

    private static func maximumSize(of record: borrowing DeliveryRecord, texts: VerdictTexts, ids: GeneratedIDs) -> Int
    {
        func size(_ text: String?) -> Int { 11 + (text?.utf8.count ?? 0) }
        // A UUID given by its bits: 17 bytes packed; counted at its text's inline size.
        let uuid = 11 + 36
        var total = Offset.variable + 4 * 10 + 3 * 10 + 2 * 10
        total += size(record.path) + 2 + size(record.listener) + size(record.method)
        total += ids.apnsID == nil ? size(record.apnsID) : uuid
        total += ids.uniqueID == nil ? size(record.uniqueID) : uuid
        total += size(texts.deviceToken) + size(texts.topic)
        total += size(texts.pushTypeSent) + size(texts.collapseID) + size(texts.apnsID)
        total += size(texts.payloadError)
        for header in record.headers { total += size(header.name) + size(header.value) }
        for lint in texts.lints { total += size(lint) }
        if let identity = texts.identity {
            total += size(identity.kind) + size(identity.keyID) + size(identity.teamID) + 8 + size(identity.subject)
            total += size(identity.verdict) + 10
            for topic in identity.topics ?? [] { total += size(topic) }
        }
        if let fault = record.fault {
            total += size(fault.ruleID) + size(fault.action) + size(fault.description)
        }
        return total + 11 + record.payload.count
    }

    private static let reasons = Reason.allCases
    private static let pushTypes = PushType.allCases

    /// 0 for no reason, else 1 + its index in `Reason.allCases`.
    static func code(_ reason: Reason?) -> UInt8 {
        guard let reason else { return 0 }
        return UInt8(reasons.firstIndex(of: reason)! + 1)
    }

    /// The reason of a `code(_:)`.
    static func reason(_ code: UInt8) -> Reason? {
        code == 0 ? nil : reasons[Int(code) - 1]
    }

    /// 0 for no push type, else 1 + its index in `PushType.allCases`.
    static func code(_ pushType: PushType?) -> UInt8 {
        guard let pushType else { return 0 }
        return UInt8(pushTypes.firstIndex(of: pushType)! + 1)
    }

    /// The push type of a `code(_:)`.
    static func pushType(_ code: UInt8) -> PushType? {
        code == 0 ? nil : pushTypes[Int(code) - 1]
    }
}
