/// The open streams of one connection, found by stream id.
///
/// A client opens streams with odd, increasing ids (RFC 9113 section 5.1.1) and those open at
/// once are mostly recent ones, so a stream is kept in the slot its id indexes (`id / 2` modulo
/// `slotCount`): finding it is an index and a comparison, with no hashing. A stream whose slot
/// an older open stream still holds goes to a dictionary instead. Senders send many HEADERS
/// before their DATA, so a "last stream" cache alone misses often.
///
/// Used on its connection's loop thread only.
final class StreamTable {
    /// Slots in the direct-indexed part (a power of two): 512 cover that many streams opened in
    /// a row, half the 1,000 concurrent streams APNs allows.
    static let slotCount = 512

    /// Each holds a retained reference (taken back when the stream leaves the table).
    private let slots: UnsafeMutablePointer<Unmanaged<StreamState>?>
    /// Streams whose slot was taken when they opened.
    @exclusivity(unchecked) private var overflow: [Int32: StreamState] = [:]
    /// How many streams are open.
    @exclusivity(unchecked) private(set) var count = 0

    init() {
        slots = .allocate(capacity: StreamTable.slotCount)
        slots.initialize(repeating: nil, count: StreamTable.slotCount)
    }

    deinit {
        removeAll()
        slots.deinitialize(count: StreamTable.slotCount)
        slots.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private static func slot(_ streamID: Int32) -> Int { Int(streamID >> 1) & (slotCount - 1) }

    /// The open stream `streamID`, if any.
    @inline(__always)
    func stream(_ streamID: Int32) -> StreamState? {
        if let found = slots[StreamTable.slot(streamID)], found._withUnsafeGuaranteedRef({ $0.id }) == streamID {
            return found.takeUnretainedValue()
        }
        return overflow.isEmpty ? nil : overflow[streamID]
    }

    /// Calls `body` with the open stream `streamID` and returns its result; nil when there is
    /// no such stream. The stream is not retained for the call: `body` must not remove it.
    /// Header fields arrive one callback each, so a retain/release pair would be paid per field
    /// (bench/README.md).
    @inline(__always)
    func withStream<R>(_ streamID: Int32, _ body: (StreamState) -> R) -> R? {
        if let found = slots[StreamTable.slot(streamID)], found._withUnsafeGuaranteedRef({ $0.id }) == streamID {
            return found._withUnsafeGuaranteedRef(body)
        }
        guard !overflow.isEmpty, let found = overflow[streamID] else { return nil }
        return body(found)
    }

    /// Adds `stream`, replacing an open stream with its id.
    func insert(_ stream: consuming StreamState) {
        let slot = slots + StreamTable.slot(stream.id)
        if let held = slot.pointee {
            if held._withUnsafeGuaranteedRef({ $0.id }) != stream.id {
                if overflow.updateValue(stream, forKey: stream.id) == nil { count += 1 }
                return
            }
            held.release()
        } else {
            count += 1
        }
        slot.pointee = Unmanaged.passRetained(stream)
    }

    /// Removes the stream `streamID` and returns it (nil when it is not open).
    @discardableResult
    func remove(_ streamID: Int32) -> StreamState? {
        let slot = slots + StreamTable.slot(streamID)
        if let found = slot.pointee, found._withUnsafeGuaranteedRef({ $0.id }) == streamID {
            slot.pointee = nil
            count -= 1
            return found.takeRetainedValue()
        }
        guard !overflow.isEmpty, let found = overflow.removeValue(forKey: streamID) else { return nil }
        count -= 1
        return found
    }

    /// Calls `body` with every open stream (in no particular order); `body` must not add or
    /// remove streams.
    func forEach(_ body: (StreamState) -> Void) {
        for index in 0..<StreamTable.slotCount {
            if let held = slots[index] { held._withUnsafeGuaranteedRef(body) }
        }
        for stream in overflow.values { body(stream) }
    }

    /// Removes every stream.
    func removeAll() {
        for index in 0..<StreamTable.slotCount {
            slots[index]?.release()
            slots[index] = nil
        }
        overflow.removeAll()
        count = 0
    }
}
