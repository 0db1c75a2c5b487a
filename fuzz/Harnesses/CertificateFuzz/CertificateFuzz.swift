import APNsAuth
import FuzzSupport

/// The client-certificate identity reader (`CertificateIdentity(der:)`: OpenSSL parses the DER,
/// MockAPNs reads the subject, UID, Apple's environment and topics extensions): any bytes give
/// an identity or an error.
@_cdecl("LLVMFuzzerTestOneInput")
public func certificateFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if let identity = try? CertificateIdentity(der: FuzzDriver.bytes(data, size)) {
        for topic in identity.coveredTopics { precondition(identity.covers(topic: topic), "a covered topic is not") }
        _ = identity.isValid(atSeconds: 1_700_000_000)
    }
    return 0
}

@_cdecl("CertificateFuzz_main")
public func certificateFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, certificateFuzz)
}
