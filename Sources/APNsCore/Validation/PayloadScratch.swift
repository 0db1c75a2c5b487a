import CYAJL

/// What `PayloadScanner` keeps from one parse to the next for its owner (a connection's
/// `ValidationMemo`): the memory lent to yajl and yajl's handle itself, so that an ordinary
/// body's parse makes no heap allocation and sets up no parser.
///
/// Without it a parse gets a 1,024-byte stack buffer (`ScannerArena.bytes`), which holds yajl's
/// handle, lexer and nesting stack but not the 2,048-byte buffer yajl's lexer allocates on every
/// parse (that went to `malloc` and `free` once per push), and makes and frees a handle
/// (bench/README.md). This buffer has room for all of it. The handle is made with
/// `yajl_allow_multiple_values`, so that after one body completes it reads the next from the
/// start; a body of several top-level values is left to Foundation (`PayloadScanner.ScanState`
/// marks it undecided). After any yajl error the handle is freed, and the next parse makes a new
/// one: no state of a refused body carries over.
///
/// Used by one thread at a time, for one parse at a time (the memo is confined to its
/// connection's thread); `bytes` (4 KiB) per owner plus yajl's growth for long escaped strings.
package final class PayloadScratch {
    /// The buffer, `bytes` long, aligned to `ScannerArena.header`.
    package let buffer: UnsafeMutableRawBufferPointer
    /// The arena over `buffer` that yajl's allocation functions use; at a fixed address, since
    /// the handle keeps a pointer to it.
    let arena: UnsafeMutablePointer<ScannerArena>
    /// yajl's callback context: the address of the current parse's `ScanState`, set by each
    /// parse (the handle keeps the cell's address for its life).
    let context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// yajl's allocation functions over `arena`.
    private var functions: yajl_alloc_funcs
    /// The handle, made at the first parse and after an error; nil until then.
    private var handle: yajl_handle?
    /// Handles made (tests: one per scratch while no body is refused).
    private(set) var handlesMade = 0

    /// Bytes per buffer: yajl's 2,048-byte lexer buffer and its own structures (about 400 bytes
    /// with the arena's block headers), with room to spare for nesting and short escaped strings.
    package static let bytes = 4096

    package init() {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: PayloadScratch.bytes, alignment: ScannerArena.header)
        arena = .allocate(capacity: 1)
        arena.initialize(to: ScannerArena(buffer))
        context = .allocate(capacity: 1)
        context.initialize(to: nil)
        functions = ScannerArena.functions(arena)
    }

    deinit {
        if let handle { yajl_free(handle) }
        arena.deinitialize(count: 1)
        arena.deallocate()
        context.deallocate()
        buffer.deallocate()
    }

    /// The handle for the next parse, made when there is none; nil when yajl cannot make one.
    func takeHandle(callbacks: UnsafePointer<yajl_callbacks>) -> yajl_handle? {
        if let handle { return handle }
        arena.pointee = ScannerArena(buffer)
        guard let made = yajl_alloc(callbacks, &functions, UnsafeMutableRawPointer(context)) else { return nil }
        guard mockapns_yajl_allow_multiple_values(made) != 0 else {
            yajl_free(made)
            return nil
        }
        handle = made
        handlesMade += 1
        return made
    }

    /// Frees the handle after a yajl error (its state is that of the refused body).
    func discardHandle() {
        if let handle { yajl_free(handle) }
        handle = nil
    }
}
