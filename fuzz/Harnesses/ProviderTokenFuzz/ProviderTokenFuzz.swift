import APNsAuth
import FuzzSupport

/// The provider-token parser (`ProviderTokenParser.parse(authorization:)`): an `authorization`
/// header value of any bytes gives a token (header and claims read from base64url JSON by
/// Foundation) or a `ProviderTokenError`. A token's signature is then verified against a fixed
/// key (OpenSSL, the raw `r‖s` form turned into DER), and a 64-byte signature survives the
/// raw → DER → raw round trip; the input itself is also read as a DER signature.
@_cdecl("LLVMFuzzerTestOneInput")
public func providerTokenFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    let text = String(decoding: bytes, as: UTF8.self)
    if case .success(let token) = ProviderTokenParser.parse(authorization: text) {
        precondition(!token.keyID.isEmpty && !token.teamID.isEmpty, "a token without a key or team")
        if let key = verifyingKey {
            _ = ES256.verify(signature: token.signature, message: token.signingInput, key: key)
        }
        if token.signature.count == ES256.rawSignatureSize, let der = ES256.der(fromRaw: token.signature) {
            precondition(ES256.raw(fromDER: der) == token.signature, "a signature changed through DER")
        }
    }
    _ = ProviderTokenParser.parse(jwt: text[...])
    _ = ES256.raw(fromDER: bytes)
    return 0
}

/// A P-256 public key from the test fixtures (the harness runs from the repository root).
private let verifyingKey = try? ES256PublicKey(contentsOfFile: "fixtures/auth/AuthKey_TEAMUNI001.pub.pem")

@_cdecl("ProviderTokenFuzz_main")
public func providerTokenFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzDriver.run(argc, argv, providerTokenFuzz)
}
