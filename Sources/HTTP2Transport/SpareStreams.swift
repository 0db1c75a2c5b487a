/// Objects of a connection's closed streams, kept for its new streams: a request then allocates
/// no stream object and no storage for its header list and body (a connection with 100 streams
/// in flight closes and opens 100 at a time).
///
/// Bounded twice: at most `maxCount` objects, and at most `maxBodyBytes` of body storage in all
/// (a spare beyond it keeps none), so that a connection left idle after a burst of large
/// payloads does not hold megabytes. Used on its connection's loop thread only.
struct SpareStreams: ~Copyable {
    /// The most objects kept: a sender's usual number of streams in flight.
    static let maxCount = 128
    /// Body storage kept in all, in bytes (each object keeps at most `StreamState.keptBodyCapacity`).
    static let maxBodyBytes = 64 * 1024

    /// The list, through `StreamState.nextSpare`. It holds one reference to each object, taken
    /// over from `give`'s caller and handed on by `take`: relinking costs no reference counting
    /// (it cost two retains and two releases per request).
    private var first: Unmanaged<StreamState>?
    /// Objects kept.
    private(set) var count = 0
    /// Body capacity the kept objects hold, in bytes.
    private(set) var bodyBytes = 0

    /// A kept object, already reset (see `StreamState.reset`), or nil when none is left.
    mutating func take() -> StreamState? {
        guard let kept = first else { return nil }
        // The list's reference passes to the caller: no retain or release.
        let stream = kept.takeRetainedValue()
        first = stream.nextSpare
        stream.nextSpare = nil
        count -= 1
        bodyBytes -= stream.body.capacity
        return stream
    }

    /// Resets `stream` and keeps it, unless `maxCount` objects are kept already.
    mutating func give(_ stream: consuming StreamState) {
        guard count < SpareStreams.maxCount else { return }
        stream.reset()
        if bodyBytes + stream.body.capacity > SpareStreams.maxBodyBytes { stream.body = [] }
        bodyBytes += stream.body.capacity
        stream.nextSpare = first
        first = Unmanaged.passRetained(stream)
        count += 1
    }

    /// Lets every kept object go (the connection closed).
    mutating func removeAll() {
        // Unlinked one by one: releasing a long list from its head would recurse once per object.
        while take() != nil {}
    }

    deinit {
        var next = first
        while let kept = next {
            next = kept._withUnsafeGuaranteedRef { $0.nextSpare }
            kept.release()
        }
    }
}
