/// libFuzzer's driver, entered from a harness's `main` (SwiftPM names an executable's entry
/// point `<Target>_main`, so each harness defines that and hands its callback here).
public enum FuzzDriver {
    /// The callback libFuzzer calls with each input: bytes and count; answers 0.
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer (`LLVMFuzzerRunDriver`) with the process's arguments (libFuzzer's flags and
    /// corpus folders) over `callback`; returns libFuzzer's exit status.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ callback: Callback
    ) -> CInt {
        var count = argc
        var vector = argv
        return llvmFuzzerRunDriver(&count, &vector, callback)
    }

    /// The input as an array (libFuzzer passes a null pointer for an empty input).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzDriver.Callback
) -> CInt
