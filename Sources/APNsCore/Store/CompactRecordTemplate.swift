/// The compact record of one push, kept to write the record of a push that repeats it in all but
/// its receive time, stream id, generated `apns-id` and `apns-unique-id`: those four fields are
/// rewritten in a copy of the bytes instead of encoding the whole record again.
///
/// Encoding a record costs about 8,700 instructions per push (callgrind, `-c 1 -m 100`, 25-byte
/// payload); a copy with four fields rewritten costs a few hundred. The caller vouches that every
/// other field of the new record equals the model's (`Gateway` does it through `RequestMemo`:
/// same request bytes, same verdict, same credential identity and answer, no fault). The result
/// is byte for byte what `CompactRecord(_:)` gives for the new record, which tests pin.
struct CompactRecordTemplate {
    /// The model record's bytes.
    private let model: [UInt8]
    /// Where the stream id's varint lies in `model`.
    private let streamID: Range<Int>
    /// Offsets in `model` of the string tags of a generated `apns-id` and of `apns-unique-id`,
    /// each written as a packed UUID (tag, then 16 bytes); nil when the field does not change.
    private let apnsID: Int?
    private let uniqueID: Int?

    /// Keeps `record`, encoded with `landmarks`. `apnsIDGenerated`: the answered `apns-id` was
    /// made up for this push (a repeat gets a new one), not echoed from the request. Returns nil
    /// when a field that changes was not stored as a packed UUID (an ID generator of another
    /// shape): such records are always encoded in full.
    init?(_ record: CompactRecord, landmarks: CompactRecord.Landmarks, apnsIDGenerated: Bool) {
        let bytes = record.bytes
        func isPackedUUID(_ at: Int) -> Bool {
            at + 17 <= bytes.count && (bytes[at] == CompactStringTag.uuidUpper || bytes[at] == CompactStringTag.uuidLower)
        }
        if apnsIDGenerated && !isPackedUUID(landmarks.apnsID) { return nil }
        if let at = landmarks.uniqueID, !isPackedUUID(at) { return nil }
        model = bytes
        streamID = landmarks.streamID
        apnsID = apnsIDGenerated ? landmarks.apnsID : nil
        uniqueID = landmarks.uniqueID
    }

    /// The model with `receivedAt`, `streamID` and, where the model has them as generated UUIDs,
    /// `apnsID` and `uniqueID` in place of its own. `apnsIDBits` and `uniqueIDBits` are the
    /// IDs' bits when their generator gave them (nothing to parse then). Returns nil when one of
    /// the IDs would not be written as the model's was (not a UUID, or one in another letter
    /// case), or `uniqueID` is missing where the model had one or present where it had none; the
    /// caller then encodes the record in full.
    func record(receivedAt: Double, streamID: Int32, apnsID: String, apnsIDBits: UUIDGenerator.Bits? = nil,
                uniqueID: String?, uniqueIDBits: UUIDGenerator.Bits? = nil) -> CompactRecord? {
        guard (uniqueID == nil) == (self.uniqueID == nil) else { return nil }
        // Each replacement is written as it would be on its own (tag + 16 bytes), then checked to
        // be in the same form as the model's.
        var packed = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))  // two tags and 32 bytes, 20 bytes each
        let fits = withUnsafeMutableBytes(of: &packed) { raw -> Bool in
            let scratch = raw.bindMemory(to: UInt8.self)
            if let at = self.apnsID {
                guard pack(apnsID, bits: apnsIDBits, into: UnsafeMutableBufferPointer(rebasing: scratch[0..<20]), like: at) else {
                    return false
                }
            }
            if let at = self.uniqueID, let uniqueID {
                guard pack(uniqueID, bits: uniqueIDBits, into: UnsafeMutableBufferPointer(rebasing: scratch[20..<40]), like: at) else {
                    return false
                }
            }
            return true
        }
        guard fits else { return nil }

        var stream = (UInt64(0), UInt64(0))  // a varint is at most 10 bytes
        let streamBytes = withUnsafeMutableBytes(of: &stream) { raw -> Int in
            var w = CompactRecordWriter(raw.bindMemory(to: UInt8.self))
            w.signed(Int64(streamID))
            return w.position
        }
        let shift = streamBytes - self.streamID.count
        let bytes = [UInt8](unsafeUninitializedCapacity: model.count + shift) { out, count in
            model.withUnsafeBufferPointer { model in
                let head = self.streamID.lowerBound, tail = self.streamID.upperBound
                out.baseAddress!.update(from: model.baseAddress!, count: head)
                withUnsafeBytes(of: &stream) { out.baseAddress!.advanced(by: head).update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: streamBytes) }
                out.baseAddress!.advanced(by: head + streamBytes).update(from: model.baseAddress! + tail, count: model.count - tail)
            }
            let base = UnsafeMutableRawPointer(out.baseAddress!)
            base.storeBytes(of: receivedAt.bitPattern.littleEndian, toByteOffset: CompactRecord.Offset.receivedAt, as: UInt64.self)
            withUnsafeBytes(of: &packed) { scratch in
                if let at = self.apnsID { (base + at + shift).copyMemory(from: scratch.baseAddress!, byteCount: 17) }
                if let at = self.uniqueID { (base + at + shift).copyMemory(from: scratch.baseAddress! + 20, byteCount: 17) }
            }
            count = model.count + shift
        }
        return CompactRecord(bytes: bytes)
    }

    /// Writes `text` (whose bits are `bits`, when known) into `scratch` as a packed UUID and
    /// checks it has the same tag (letter case) as the model's at `at`.
    private func pack(_ text: String, bits: UUIDGenerator.Bits?, into scratch: UnsafeMutableBufferPointer<UInt8>,
                      like at: Int) -> Bool {
        guard let bits else {
            var w = CompactRecordWriter(scratch)
            return w.uuid(text) && scratch[0] == model[at]
        }
        // As `CompactRecordWriter` tags it: digits alone count as uppercase.
        scratch[0] = bits.uppercase || !bits.hasLetters ? CompactStringTag.uuidUpper : CompactStringTag.uuidLower
        let packed = UnsafeMutableRawPointer(scratch.baseAddress! + 1)
        packed.storeBytes(of: bits.high.bigEndian, as: UInt64.self)
        packed.storeBytes(of: bits.low.bigEndian, toByteOffset: 8, as: UInt64.self)
        return scratch[0] == model[at]
    }
}
