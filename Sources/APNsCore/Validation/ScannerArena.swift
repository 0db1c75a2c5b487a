import CYAJL
import Glibc

/// Memory for one `PayloadScanner` parse: yajl's handle, lexer and nesting stack are carved out
/// of a buffer the caller lends (on the stack), instead of six `malloc`s and six `free`s per push
/// (one remains: yajl's 2,048-byte string buffer, larger than the stack buffer can be). A request
/// that does not fit goes to `malloc` as before; `free` and `realloc` tell the two apart by address.
///
/// Blocks are 16-byte aligned, each after a 16-byte header holding its size. Freeing a block
/// gives its bytes back only when it is the last one (yajl frees the whole parse at once at
/// the end, so nothing is reused before that), and a `realloc` of the last block grows it in place.
struct ScannerArena {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    /// Bytes of `base` handed out, headers included.
    private(set) var used = 0
    /// Allocations that did not fit and went to `malloc` (tests look at it).
    private(set) var overflows = 0

    /// Size of the block header, and the alignment of every block.
    static let header = 16

    /// An arena over `buffer` (its start 16-byte aligned), which must outlive every block.
    init(_ buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// Whether `pointer` is a block of this arena (else `malloc`'s).
    func owns(_ pointer: UnsafeMutableRawPointer) -> Bool {
        pointer >= base && pointer < base + capacity
    }

    mutating func allocate(_ size: Int) -> UnsafeMutableRawPointer? {
        let rounded = (size + ScannerArena.header - 1) & ~(ScannerArena.header - 1)
        guard used + ScannerArena.header + rounded <= capacity else {
            overflows += 1
            return malloc(size)
        }
        let block = base + used + ScannerArena.header
        (block - ScannerArena.header).storeBytes(of: rounded, as: Int.self)
        used += ScannerArena.header + rounded
        return block
    }

    mutating func free(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        guard owns(pointer) else { return Glibc.free(pointer) }
        if pointer + size(of: pointer) == base + used { used = pointer - ScannerArena.header - base }
    }

    mutating func reallocate(_ pointer: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
        guard let pointer else { return allocate(size) }
        guard owns(pointer) else { return realloc(pointer, size) }
        let old = self.size(of: pointer)
        if size <= old { return pointer }
        if pointer + old == base + used {
            // The last block: grow it where it is when the rest of the buffer has room.
            let rounded = (size + ScannerArena.header - 1) & ~(ScannerArena.header - 1)
            if pointer - base + rounded <= capacity {
                (pointer - ScannerArena.header).storeBytes(of: rounded, as: Int.self)
                used = pointer - base + rounded
                return pointer
            }
        }
        guard let moved = allocate(size) else { return nil }
        moved.copyMemory(from: pointer, byteCount: old)
        free(pointer)
        return moved
    }

    /// The usable size of a block of this arena.
    private func size(of block: UnsafeMutableRawPointer) -> Int {
        (block - ScannerArena.header).load(as: Int.self)
    }

    /// yajl's allocation functions over the arena at `context` (an `UnsafeMutablePointer<ScannerArena>`).
    static func functions(_ arena: UnsafeMutablePointer<ScannerArena>) -> yajl_alloc_funcs {
        yajl_alloc_funcs(
            malloc: { context, size in ScannerArena.arena(context).pointee.allocate(size) },
            realloc: { context, pointer, size in ScannerArena.arena(context).pointee.reallocate(pointer, size) },
            free: { context, pointer in ScannerArena.arena(context).pointee.free(pointer) },
            ctx: UnsafeMutableRawPointer(arena))
    }

    @inline(__always)
    fileprivate static func arena(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<ScannerArena> {
        context!.assumingMemoryBound(to: ScannerArena.self)
    }

    /// Bytes lent per parse: room for yajl's own structures (about 250 bytes) and its nesting
    /// stack (128 bytes); its 2,048-byte string buffer, allocated on every parse, goes to
    /// `malloc`. No more: `withUnsafeTemporaryAllocation` takes larger buffers from the heap,
    /// not the stack (its limit is 1,024 bytes).
    static let bytes = 1024
}
