/// The bytes a connection has to write to its socket, in one contiguous buffer: what nghttp2
/// produced, appended with a `memcpy` (an Array's append costs several times that, once per
/// frame), then written from `unwritten` on.
///
/// Used on its connection's loop thread only.
final class WriteBuffer {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes held, written or not.
    @exclusivity(unchecked) private(set) var count = 0
    /// Bytes already written, from the start.
    @exclusivity(unchecked) private(set) var written = 0

    /// A buffer with room for `capacity` bytes before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// Bytes held and not written yet.
    var pending: Int { count - written }

    /// The first byte not written yet.
    var unwritten: UnsafePointer<UInt8> { UnsafePointer(storage + written) }

    /// Appends `length` bytes from `bytes`, growing the buffer when they do not fit.
    @inline(__always)
    func append(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        if count + length > capacity { grow(toHold: count + length) }
        (storage + count).update(from: bytes, count: length)
        count += length
    }

    /// Marks `length` more bytes as written.
    func markWritten(_ length: Int) { written += length }

    /// Forgets every byte, keeping the storage.
    func removeAll() {
        count = 0
        written = 0
    }

    private func grow(toHold needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: storage, count: count)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }
}
