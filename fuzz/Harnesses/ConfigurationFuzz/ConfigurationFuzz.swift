import Configuration
import FuzzSupport

/// The configuration file reader (`ConfigurationFile.parse`: strict JSON through Foundation,
/// unknown and duplicate keys refused, every setting's range, the listeners, devices, channels
/// and fault rules): any bytes give a configuration or a `ConfigurationError` with a message,
/// never a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func configurationFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    do {
        _ = try ConfigurationFile.parse(FuzzDriver.bytes(data, size))
    } catch {
        precondition(!"\(error)".isEmpty, "an error without a message")
    }
    return 0
}

@_cdecl("ConfigurationFuzz_main")
public func configurationFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, configurationFuzz)
}
