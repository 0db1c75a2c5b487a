/// Memory that `PayloadScanner` lends yajl for each parse, kept from one parse to the next by
/// its owner (a connection's `ValidationMemo`), so that a parse makes no heap allocation at all.
///
/// The stack buffer a parse gets without it (`ScannerArena.bytes`, 1,024 bytes) holds yajl's
/// handle, lexer and nesting stack, but not the 2,048-byte buffer yajl's lexer allocates on
/// every parse (it buffers the end-of-input token): that one went to `malloc` and `free` once per
/// push (bench/README.md). This buffer has room for all of it, so only bodies with long escaped
/// strings or deep nesting still reach `malloc`.
///
/// Used by one thread at a time, for one parse at a time (the memo is confined to its
/// connection's thread); `bytes` (4 KiB) per owner, allocated when the owner is made.
package final class PayloadScratch {
    /// The buffer, `bytes` long, aligned to `ScannerArena.header`.
    package let buffer: UnsafeMutableRawBufferPointer

    /// Bytes per buffer: yajl's 2,048-byte lexer buffer and its own structures (about 400 bytes
    /// with the arena's block headers), with room to spare for nesting and short escaped strings.
    package static let bytes = 4096

    package init() {
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: PayloadScratch.bytes, alignment: ScannerArena.header)
    }

    deinit {
        buffer.deallocate()
    }
}
