import APNsCore

/// Where the per-push fields lie in the compact record of one push (the model), kept to write the
/// record of a push that repeats it in all but its receive time, stream id, generated `apns-id`
/// and `apns-unique-id`: those four fields are rewritten in a copy of the model's bytes instead
/// of encoding the whole record again.
///
/// The template does not hold the model's bytes, so a connection's memo pins no record memory.
/// The store keeps a repeat as a *delta* (`deltaCount`, `writeDelta`): the template's landmarks
/// and the new values, about 60 bytes, next to a reference to the stored model
/// (`DeliveryStore.append(repeating:template:_:status:reason:)`); reading it writes the whole
/// record out again (`materialize`). Preparing a `Rewrite` (spelling the IDs) is done before,
/// outside the store's lock.
///
/// A copy with four fields rewritten costs a small part of encoding the record (bench/README.md).
/// The caller vouches that every other field of the new record equals the model's (`Gateway`
/// does it through `PreviousRequest`: same request bytes, same verdict, same credential identity and
/// answer, no fault). The result is byte for byte what `CompactRecord(_:)` gives for the new
/// record, which tests pin.
package struct CompactRecordTemplate {
    /// The model's size in bytes.
    let count: Int
    /// Where the stream id's varint lies in the model.
    private let streamID: Range<Int>
    /// Offsets in the model of the string tags of a generated `apns-id` and of `apns-unique-id`,
    /// each written as a packed UUID (tag, then 16 bytes), with the tag found there; nil when
    /// the field does not change.
    private let apnsID: (at: Int, tag: UInt8)?
    private let uniqueID: (at: Int, tag: UInt8)?
    /// Where the fields a *variant* rewrites lie in a template's model (a push like the model's
    /// but for its device token, some header values and its payload; see `writeVariant`), kept
    /// beside the template rather than in it: the template stays a plain value, copied as bytes
    /// on every repeat. Offsets are relative to the end of the payload-bytes varint, so they stay
    /// put when the varints before them change size.
    package struct VariantLayout {
        /// The length of the model's payload-bytes varint, which follows the stream id's.
        fileprivate var payloadBytesCount: Int
        /// The token after `/3/device/` in the path, as a string (tag and all); nil when the
        /// path has another form or the verdict's device token does not point back at it.
        fileprivate let pathRest: Range<Int>?
        /// Each header value, as a string, in header order.
        fileprivate let headerValues: [Range<Int>]
        /// The payload's length varint, the last field.
        fileprivate let payload: Int

        /// Reads where a variant's fields lie in `model`, a full record encoded with `landmarks`.
        package init(_ model: UnsafeBufferPointer<UInt8>, landmarks: CompactRecord.Landmarks) {
            self = CompactRecordTemplate.layout(of: model, streamID: landmarks.streamID)
        }

        fileprivate init(payloadBytesCount: Int, pathRest: Range<Int>?, headerValues: [Range<Int>], payload: Int) {
            self.payloadBytesCount = payloadBytesCount
            self.pathRest = pathRest
            self.headerValues = headerValues
            self.payload = payload
        }
    }

    /// The template of `model`, encoded with `landmarks`. `apnsIDGenerated`: the answered
    /// `apns-id` was made up for this push (a repeat gets a new one), not echoed from the
    /// request. Returns nil when a field that changes was not stored as a packed UUID (an ID
    /// generator of another shape): such records are always encoded in full.
    package init?(_ model: UnsafeBufferPointer<UInt8>, landmarks: CompactRecord.Landmarks, apnsIDGenerated: Bool) {
        func packedUUID(_ at: Int) -> (at: Int, tag: UInt8)? {
            guard at >= 0, at + 17 <= model.count,
                model[at] == CompactStringTag.uuidUpper || model[at] == CompactStringTag.uuidLower
            else { return nil }
            return (at, model[at])
        }
        var apnsID: (at: Int, tag: UInt8)?
        if apnsIDGenerated {
            guard let packed = packedUUID(landmarks.apnsID) else { return nil }
            apnsID = packed
        }
        var uniqueID: (at: Int, tag: UInt8)?
        if let at = landmarks.uniqueID {
            guard let packed = packedUUID(at) else { return nil }
            uniqueID = packed
        }
        self.init(count: model.count, streamID: landmarks.streamID, apnsID: apnsID, uniqueID: uniqueID)
    }

    /// Reads where a variant's fields lie in `model` (a full record whose stream id varint is at
    /// `streamID`).
    fileprivate static func layout(of model: UnsafeBufferPointer<UInt8>, streamID: Range<Int>) -> VariantLayout {
        var r = CompactRecordReader(model, at: streamID.upperBound)
        let flags = model[CompactRecord.Offset.flags]
        let payloadBytesStart = r.position
        _ = r.varint()
        let base = r.position
        var rest: Range<Int>?
        if model[r.position] == CompactStringTag.prefixed {
            r.position += 2
            let start = r.position
            r.skipString()
            rest = start..<r.position
        } else {
            r.skipString()
        }
        let headerCount = r.count()
        var values: [Range<Int>] = []
        values.reserveCapacity(headerCount)
        for _ in 0..<headerCount {
            r.skipString()
            let start = r.position
            r.skipString()
            values.append((start - base)..<(r.position - base))
        }
        r.skipString()  // the answered apns-id
        if let found = rest {
            // The verdict's token must be a reference to the path's rest.
            var token = CompactRecordReader(model, at: r.position)
            if token.byte() != CompactStringTag.reference || Int(token.varint()) != r.position - found.lowerBound {
                rest = nil
            }
        }
        for _ in 0..<8 { r.skipString() }  // token, topic, push type, collapse id, apns-id, listener, method, unique id
        if flags & CompactRecord.Flag.timestamp != 0 { _ = r.varint() }
        if flags & CompactRecord.Flag.priority != 0 { _ = r.varint() }
        if flags & CompactRecord.Flag.expiration != 0 { _ = r.varint() }
        for _ in 0..<r.count() { r.skipString() }  // lints
        r.skipString()  // payload error
        if flags & CompactRecord.Flag.identity != 0 {
            for _ in 0..<3 { r.skipString() }
            if flags & CompactRecord.Flag.identityIssuedAt != 0 { r.position += 8 }
            r.skipString()
            let topics = r.count()
            if topics > 0 { for _ in 0..<(topics - 1) { r.skipString() } }
            r.skipString()
        }
        if flags & CompactRecord.Flag.fault != 0 { for _ in 0..<3 { r.skipString() } }
        return VariantLayout(
            payloadBytesCount: base - payloadBytesStart,
            pathRest: rest.map { ($0.lowerBound - base)..<($0.upperBound - base) }, headerValues: values,
            payload: r.position - base)
    }

    /// `init(_:landmarks:apnsIDGenerated:)` on a record's bytes.
    init?(_ model: CompactRecord, landmarks: CompactRecord.Landmarks, apnsIDGenerated: Bool) {
        guard
            let template = model.withBytes({
                CompactRecordTemplate($0, landmarks: landmarks, apnsIDGenerated: apnsIDGenerated)
            })
        else { return nil }
        self = template
    }

    private init(count: Int, streamID: Range<Int>, apnsID: (at: Int, tag: UInt8)?, uniqueID: (at: Int, tag: UInt8)?) {
        self.count = count
        self.streamID = streamID
        self.apnsID = apnsID
        self.uniqueID = uniqueID
    }

    /// The new values of one repeat, spelled as they are written: made by `rewrite`, written by
    /// `write`.
    package struct Rewrite {
        fileprivate var receivedAt: UInt64
        /// The stream id's varint (at most 10 bytes) and its length.
        fileprivate var stream = (UInt64(0), UInt64(0))
        fileprivate var streamBytes = 0
        /// Two packed UUIDs (tag + 16 bytes), 20 bytes apart.
        fileprivate var packed = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        /// How much longer than the model the new record is (the stream id's varint may differ).
        fileprivate var shift = 0
        /// The new record's size in bytes.
        var count = 0

        fileprivate init(receivedAt: UInt64, streamBytes: Int = 0) {
            self.receivedAt = receivedAt
            self.streamBytes = streamBytes
        }
    }

    /// The model's values replaced by `receivedAt`, `streamID` and, where the model has them as
    /// generated UUIDs, `apnsID` and `uniqueID` (as bits, nothing to parse; or as text). Returns
    /// nil when one of the IDs would not be written as the model's was (not a UUID, or one in
    /// another letter case), or `uniqueID` is missing where the model had one or present where it
    /// had none; the caller then encodes the record in full.
    package func rewrite(receivedAt: Double, streamID: Int32, apnsID: ResponseID, uniqueID: ResponseID?) -> Rewrite? {
        guard (uniqueID == nil) == (self.uniqueID == nil) else { return nil }
        var rewrite = Rewrite(receivedAt: receivedAt.bitPattern)
        // Each replacement is written as it would be on its own (tag + 16 bytes), then checked to
        // be in the same form as the model's.
        let fits = withUnsafeMutableBytes(of: &rewrite.packed) { raw -> Bool in
            let scratch = raw.bindMemory(to: UInt8.self)
            if let model = self.apnsID {
                guard pack(apnsID, into: UnsafeMutableBufferPointer(rebasing: scratch[0..<20]), like: model.tag) else {
                    return false
                }
            }
            if let model = self.uniqueID, let uniqueID {
                guard pack(uniqueID, into: UnsafeMutableBufferPointer(rebasing: scratch[20..<40]), like: model.tag)
                else {
                    return false
                }
            }
            return true
        }
        guard fits else { return nil }
        rewrite.streamBytes = withUnsafeMutableBytes(of: &rewrite.stream) { raw -> Int in
            var w = CompactRecordWriter(raw.bindMemory(to: UInt8.self))
            w.signed(Int64(streamID))
            return w.position
        }
        rewrite.shift = rewrite.streamBytes - self.streamID.count
        rewrite.count = count + rewrite.shift
        return rewrite
    }

    /// Writes the new record, `rewrite.count` bytes, to `out`: the `model`'s bytes (`count` of
    /// them, the record this template was made from) with `rewrite`'s values in place.
    func write(_ rewrite: Rewrite, from model: UnsafeBufferPointer<UInt8>, to out: UnsafeMutableRawPointer) {
        precondition(model.count == count, "CompactRecordTemplate: not the model's bytes")
        var rewrite = rewrite
        let head = streamID.lowerBound, tail = streamID.upperBound
        let source = UnsafeRawPointer(model.baseAddress!)
        out.copyMemory(from: source, byteCount: head)
        withUnsafeBytes(of: &rewrite.stream) {
            (out + head).copyMemory(from: $0.baseAddress!, byteCount: rewrite.streamBytes)
        }
        (out + head + rewrite.streamBytes).copyMemory(from: source + tail, byteCount: count - tail)
        out.storeBytes(
            of: rewrite.receivedAt.littleEndian, toByteOffset: CompactRecord.Offset.receivedAt, as: UInt64.self)
        withUnsafeBytes(of: &rewrite.packed) { scratch in
            if let model = apnsID {
                (out + model.at + rewrite.shift).copyMemory(from: scratch.baseAddress!, byteCount: 17)
            }
            if let model = uniqueID {
                (out + model.at + rewrite.shift).copyMemory(from: scratch.baseAddress! + 20, byteCount: 17)
            }
        }
    }

    /// The record `model` (the one this template was made from) becomes with these values, in
    /// a chunk of its own; nil as `rewrite` says.
    func record(
        from model: CompactRecord, receivedAt: Double, streamID: Int32, apnsID: String,
        apnsIDBits: UUIDGenerator.Bits? = nil, uniqueID: String?, uniqueIDBits: UUIDGenerator.Bits? = nil
    ) -> CompactRecord? {
        guard
            let rewrite = rewrite(
                receivedAt: receivedAt, streamID: streamID, apnsID: apnsIDBits.map { .uuid($0) } ?? .text(apnsID),
                uniqueID: uniqueIDBits.map { .uuid($0) } ?? uniqueID.map { .text($0) })
        else { return nil }
        let chunk = RecordChunk(capacity: rewrite.count)
        let offset = chunk.claim(rewrite.count)
        model.withBytes { write(rewrite, from: $0, to: chunk.base + offset) }
        return CompactRecord(chunk: chunk, offset: offset, count: rewrite.count)
    }

    // MARK: Variants

    /// Writes to `record` (replacing its bytes) the record of a *variant* of the model (`model`,
    /// this template's bytes, whose fields lie as `layout` says) and returns that record's own
    /// template, `layout` then saying where its fields lie, for the next push: the
    /// model's bytes with `rewrite`'s values and, in place of the model's, the device token of
    /// `path` (when not nil), the values of `headers` whose bit is set in `changedHeaders` (bit
    /// `i`: `headers[i]`), `payloadBytes` and `payload`. Returns nil, `record` then holding no
    /// record, when they cannot be written so: the model's path and token are of another form,
    /// `path` is not `/3/device/` and a token, or a new token or header value takes more or fewer
    /// bytes than the model's (later fields point back across them).
    ///
    /// The caller vouches that the new record differs from the model in those fields alone, and
    /// that its verdict's device token is the token of `path` (`PreviousRequest` checks both): the
    /// result is then byte for byte what `CompactRecord(_:)` gives for it, which tests pin.
    package func writeVariant(
        _ rewrite: Rewrite, layout: inout VariantLayout, from model: UnsafeBufferPointer<UInt8>, path: String?,
        headers: [HeaderField],
        changedHeaders: UInt64, payloadBytes: Int, payload: [UInt8], into record: inout [UInt8]
    ) -> CompactRecordTemplate? {
        guard model.count == count, changedHeaders == 0 || headers.count == layout.headerValues.count
        else { return nil }
        var lengths = (UInt64(0), UInt64(0))
        let lengthBytes = withUnsafeMutableBytes(of: &lengths) { raw -> Int in
            var w = CompactRecordWriter(raw.bindMemory(to: UInt8.self))
            w.signed(Int64(payloadBytes))
            return w.position
        }
        let shift = rewrite.shift + lengthBytes - layout.payloadBytesCount
        let oldBase = streamID.upperBound + layout.payloadBytesCount, newBase = oldBase + shift
        let blobCount = CompactRecordWriter.varintCount(UInt64(payload.count)) + payload.count
        let newCount = newBase + layout.payload + blobCount
        if record.count > newCount {
            record.removeLast(record.count - newCount)
        } else if record.count < newCount {
            record.append(contentsOf: repeatElement(0, count: newCount - record.count))
        }
        let successor = record.withUnsafeMutableBufferPointer { buffer -> CompactRecordTemplate? in
            let out = UnsafeMutableRawPointer(buffer.baseAddress!)
            // Everything but the payload, with the per-push fields of a repeat.
            let source = UnsafeRawPointer(model.baseAddress!)
            let head = streamID.lowerBound
            out.copyMemory(from: source, byteCount: head)
            var rewrite = rewrite
            withUnsafeBytes(of: &rewrite.stream) {
                (out + head).copyMemory(from: $0.baseAddress!, byteCount: rewrite.streamBytes)
            }
            withUnsafeBytes(of: &lengths) {
                (out + head + rewrite.streamBytes).copyMemory(from: $0.baseAddress!, byteCount: lengthBytes)
            }
            (out + newBase).copyMemory(from: source + oldBase, byteCount: layout.payload)
            out.storeBytes(
                of: rewrite.receivedAt.littleEndian, toByteOffset: CompactRecord.Offset.receivedAt, as: UInt64.self)
            withUnsafeBytes(of: &rewrite.packed) { scratch in
                if let model = apnsID { (out + model.at + shift).copyMemory(from: scratch.baseAddress!, byteCount: 17) }
                if let model = uniqueID {
                    (out + model.at + shift).copyMemory(from: scratch.baseAddress! + 20, byteCount: 17)
                }
            }
            // The strings that differ, each in exactly the bytes of the model's.
            if var path {
                guard let rest = layout.pathRest else { return nil }
                let fits = path.withUTF8 { utf8 -> Bool in
                    let prefix = CompactStringTable.bytes(of: CompactStringTable.devicePathPrefix)
                    guard utf8.count > prefix.count,
                        CompactRecordWriter.equal(UnsafeBufferPointer(rebasing: utf8[..<prefix.count]), prefix)
                    else { return false }
                    let token = UnsafeBufferPointer(rebasing: utf8[prefix.count...])
                    // A table string would not be the reference the model's token is.
                    guard CompactStringTable.code(ofUTF8: token) == nil else { return false }
                    return CompactRecordTemplate.write(token, exactly: rest.count, to: out + newBase + rest.lowerBound)
                }
                guard fits else { return nil }
            }
            var bits = changedHeaders
            while bits != 0 {
                let index = bits.trailingZeroBitCount
                bits &= bits - 1
                let range = layout.headerValues[index]
                var value = headers[index].value
                let fits = value.withUTF8 {
                    CompactRecordTemplate.write($0, exactly: range.count, to: out + newBase + range.lowerBound)
                }
                guard fits else { return nil }
            }
            var w = CompactRecordWriter(UnsafeMutableBufferPointer(rebasing: buffer[(newBase + layout.payload)...]))
            w.blob(payload)
            let successor = CompactRecordTemplate(
                count: newCount, streamID: head..<(head + rewrite.streamBytes),
                apnsID: apnsID.map { ($0.at + shift, $0.tag) }, uniqueID: uniqueID.map { ($0.at + shift, $0.tag) })
            return successor
        }
        if successor == nil {
            record.removeAll(keepingCapacity: true)
        } else {
            layout.payloadBytesCount = lengthBytes
        }
        return successor
    }

    /// Writes the string `utf8` as `CompactRecordWriter.string` would, to `out`, when that takes
    /// exactly `count` bytes; false (`out` untouched) otherwise.
    private static func write(_ utf8: UnsafeBufferPointer<UInt8>, exactly count: Int, to out: UnsafeMutableRawPointer)
        -> Bool
    {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: utf8.count + 12) { scratch in
            var w = CompactRecordWriter(scratch)
            w.string(utf8: utf8)
            guard w.position == count else { return false }
            out.copyMemory(from: scratch.baseAddress!, byteCount: count)
            return true
        }
    }

    // MARK: Stored repeats

    /// The bytes `writeDelta` takes for `rewrite`: 22 fixed, the stream id's varint, and 17 per
    /// rewritten ID (about 60 for a sandbox push).
    func deltaCount(_ rewrite: Rewrite) -> Int {
        Delta.fixed + rewrite.streamBytes + (apnsID == nil ? 0 : 17) + (uniqueID == nil ? 0 : 17)
    }

    /// Writes `deltaCount(rewrite)` bytes to `out`: what `materialize` needs, with the model's
    /// bytes, to write the record `write(rewrite, from:to:)` would.
    ///
    /// Layout (little-endian, unaligned): `u32` stream id varint offset, `u8` its length in the
    /// model, `u8` its new length, `u32` offsets of the `apns-id` and `apns-unique-id` tags in the
    /// model (`u32.max`: not rewritten), `u64` receive time, the new stream id varint, then the
    /// packed IDs rewritten (tag and 16 bytes each).
    func writeDelta(_ rewrite: Rewrite, to out: UnsafeMutableRawPointer) {
        var rewrite = rewrite
        out.storeBytes(of: UInt32(streamID.lowerBound).littleEndian, toByteOffset: 0, as: UInt32.self)
        out.storeBytes(of: UInt8(streamID.count), toByteOffset: 4, as: UInt8.self)
        out.storeBytes(of: UInt8(rewrite.streamBytes), toByteOffset: 5, as: UInt8.self)
        let apnsAt = apnsID.map { UInt32($0.at) } ?? Delta.absent
        let uniqueAt = uniqueID.map { UInt32($0.at) } ?? Delta.absent
        out.storeBytes(of: apnsAt.littleEndian, toByteOffset: 6, as: UInt32.self)
        out.storeBytes(of: uniqueAt.littleEndian, toByteOffset: 10, as: UInt32.self)
        out.storeBytes(of: rewrite.receivedAt.littleEndian, toByteOffset: 14, as: UInt64.self)
        var at = Delta.fixed
        withUnsafeBytes(of: &rewrite.stream) {
            (out + at).copyMemory(from: $0.baseAddress!, byteCount: rewrite.streamBytes)
        }
        at += rewrite.streamBytes
        withUnsafeBytes(of: &rewrite.packed) { scratch in
            if apnsID != nil {
                (out + at).copyMemory(from: scratch.baseAddress!, byteCount: 17)
                at += 17
            }
            if uniqueID != nil { (out + at).copyMemory(from: scratch.baseAddress! + 20, byteCount: 17) }
        }
    }

    /// The size in bytes of the record `delta` (from `writeDelta`) stands for, given its model's
    /// size.
    static func materializedCount(delta: UnsafeRawBufferPointer, modelCount: Int) -> Int {
        precondition(delta.count >= Delta.fixed, "compact record: delta shorter than its fixed fields")
        return modelCount - Int(delta[4]) + Int(delta[5])
    }

    /// The `apns-id` of the record `delta` (from `writeDelta`) stands for, as its packed UUID (tag
    /// and 16 bytes) within `delta`, when it is not its model's (a generated one); nil when the
    /// record has its model's `apns-id`.
    static func rewrittenAPNsID(delta: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        precondition(delta.count >= Delta.fixed, "compact record: delta shorter than its fixed fields")
        guard UInt32(littleEndian: delta.loadUnaligned(fromByteOffset: 6, as: UInt32.self)) != Delta.absent else {
            return nil
        }
        let at = Delta.fixed + Int(delta[5])
        precondition(at + 17 <= delta.count, "compact record: delta shorter than its apns-id")
        return UnsafeRawBufferPointer(rebasing: delta[at..<(at + 17)])
    }

    /// Writes the record `delta` stands for (`materializedCount` bytes) to `out`, from the bytes of
    /// the model it was made against.
    static func materialize(
        delta: UnsafeRawBufferPointer, model: UnsafeBufferPointer<UInt8>,
        to out: UnsafeMutableRawPointer
    ) {
        precondition(delta.count >= Delta.fixed, "compact record: delta shorter than its fixed fields")
        let streamAt = Int(UInt32(littleEndian: delta.loadUnaligned(fromByteOffset: 0, as: UInt32.self)))
        let oldStream = Int(delta[4]), newStream = Int(delta[5])
        let apnsAt = UInt32(littleEndian: delta.loadUnaligned(fromByteOffset: 6, as: UInt32.self))
        let uniqueAt = UInt32(littleEndian: delta.loadUnaligned(fromByteOffset: 10, as: UInt32.self))
        func packed(_ at: UInt32) -> (at: Int, tag: UInt8)? {
            guard at != Delta.absent else { return nil }
            precondition(Int(at) + 17 <= model.count, "compact record: delta past its model")
            return (Int(at), model[Int(at)])
        }
        let template = CompactRecordTemplate(
            count: model.count, streamID: streamAt..<(streamAt + oldStream),
            apnsID: packed(apnsAt), uniqueID: packed(uniqueAt))
        precondition(
            streamAt + oldStream <= model.count && newStream <= 10
                && delta.count == template.deltaCount(Rewrite(receivedAt: 0, streamBytes: newStream)),
            "compact record: delta does not fit its model")
        var rewrite = Rewrite(
            receivedAt: UInt64(littleEndian: delta.loadUnaligned(fromByteOffset: 14, as: UInt64.self)),
            streamBytes: newStream)
        var at = Delta.fixed
        withUnsafeMutableBytes(of: &rewrite.stream) {
            $0.baseAddress!.copyMemory(from: delta.baseAddress! + at, byteCount: newStream)
        }
        at += newStream
        withUnsafeMutableBytes(of: &rewrite.packed) { scratch in
            if template.apnsID != nil {
                scratch.baseAddress!.copyMemory(from: delta.baseAddress! + at, byteCount: 17)
                at += 17
            }
            if template.uniqueID != nil {
                (scratch.baseAddress! + 20).copyMemory(from: delta.baseAddress! + at, byteCount: 17)
            }
        }
        rewrite.shift = newStream - oldStream
        rewrite.count = model.count + rewrite.shift
        template.write(rewrite, from: model, to: out)
    }

    private enum Delta {
        static let fixed = 22
        static let absent = UInt32.max
    }

    /// Writes `id` into `scratch` as a packed UUID and checks it has the model's tag (letter case).
    private func pack(_ id: ResponseID, into scratch: UnsafeMutableBufferPointer<UInt8>, like tag: UInt8) -> Bool {
        let bits: UUIDGenerator.Bits
        switch id {
        case .text(let text):
            var w = CompactRecordWriter(scratch)
            return w.uuid(text) && scratch[0] == tag
        case .uuid(let given):
            bits = given
        }
        precondition(scratch.count >= 17, "CompactRecordTemplate: scratch too small")
        CompactRecordWriter.packUUID(bits, to: scratch.baseAddress!)
        return scratch[0] == tag
    }
}
