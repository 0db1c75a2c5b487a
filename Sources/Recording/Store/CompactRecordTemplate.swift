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
/// Encoding a record costs about 8,700 instructions per push (callgrind, `-c 1 -m 100`, 25-byte
/// payload); a copy with four fields rewritten costs a few hundred. The caller vouches that every
/// other field of the new record equals the model's (`Gateway` does it through `RequestMemo`:
/// same request bytes, same verdict, same credential identity and answer, no fault). The result
/// is byte for byte what `CompactRecord(_:)` gives for the new record, which tests pin.
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
    package func rewrite(receivedAt: Double, streamID: Int32, apnsID: AnsweredID, uniqueID: AnsweredID?) -> Rewrite? {
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
    private func pack(_ id: AnsweredID, into scratch: UnsafeMutableBufferPointer<UInt8>, like tag: UInt8) -> Bool {
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
