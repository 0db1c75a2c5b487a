import COpenSSL
import Glibc
import SystemSupport

/// Why a TLS context could not be made.
public struct TLSError: Error, CustomStringConvertible {
    /// What failed, with OpenSSL's own message when it gave one.
    public var description: String

    /// `what`, with the oldest text on OpenSSL's error queue (which it empties) when there is one.
    init(_ what: String) { description = OpenSSLErrorQueue.describe(what) }
}

/// How a listener treats ALPN (docs/apns-behaviour.md §6: APNs clients connect both with and without it).
public enum ALPNMode: Sendable {
    /// `h2` is selected when offered; a client offering no ALPN proceeds as HTTP/2 (prior knowledge).
    case optional
    /// A client that does not offer `h2` is refused during the handshake.
    case required
}

/// An OpenSSL server context: TLS 1.2 or 1.3, the certificate chain and key, ALPN `h2`.
public final class TLSContext: @unchecked Sendable {
    /// `SSL_CTX *`, immutable after init and shared by every connection of a listener.
    let context: OpaquePointer
    /// The ALPN policy.
    public let alpn: ALPNMode

    /// Loads a PEM certificate chain and a PEM private key.
    /// - Parameter clientCAPaths: PEM files of CAs whose client certificates are trusted; when
    ///   non-empty the server asks every client for a certificate (mutual TLS). The handshake
    ///   succeeds whatever the client sends, so the application can answer with APNs's own
    ///   reason; `AcceptedConnection.clientCertificate` says what was presented and whether it verified.
    /// - Throws: `TLSError` naming the file that could not be read or the mismatch.
    public convenience init(
        certificatePath: String, keyPath: String, alpn: ALPNMode = .optional,
        clientCAPaths: [String] = []
    ) throws {
        try self.init(alpn: alpn) { context in
            try TLSContext.requestClientCertificates(context, caPaths: clientCAPaths)
            guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
                throw TLSError("cannot load the TLS certificate chain from \(certificatePath)")
            }
            guard SSL_CTX_use_PrivateKey_file(context, keyPath, SSL_FILETYPE_PEM) == 1 else {
                throw TLSError("cannot load the TLS private key from \(keyPath)")
            }
        }
    }

    /// A context with a self-signed P-256 certificate made in memory for `localhost`, `127.0.0.1`
    /// and `::1`: for embedded use when no certificate is configured. Clients must skip
    /// verification or trust `certificatePEM`.
    public static func ephemeral(alpn: ALPNMode = .optional, clientCAPaths: [String] = []) throws -> TLSContext {
        try TLSContext(alpn: alpn) { context in
            try requestClientCertificates(context, caPaths: clientCAPaths)
            guard let key = mockapns_generate_p256() else { throw TLSError("cannot generate a P-256 key") }
            defer { EVP_PKEY_free(key) }
            guard let cert = mockapns_self_signed(key, "localhost", "DNS:localhost,IP:127.0.0.1,IP:::1", 365) else {
                throw TLSError("cannot make a self-signed certificate")
            }
            defer { X509_free(cert) }
            guard SSL_CTX_use_certificate(context, cert) == 1, SSL_CTX_use_PrivateKey(context, key) == 1 else {
                throw TLSError("cannot install the self-signed certificate")
            }
        }
    }

    private init(alpn: ALPNMode, configure: (OpaquePointer) throws -> Void) throws {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw TLSError("SSL_CTX_new failed") }
        self.context = context
        self.alpn = alpn
        _ = mockapns_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = mockapns_SSL_CTX_set_options(
            context,
            mockapns_SSL_OP_NO_RENEGOTIATION
                | mockapns_SSL_OP_NO_COMPRESSION | mockapns_SSL_OP_CIPHER_SERVER_PREFERENCE)
        _ = mockapns_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        try configure(context)
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw TLSError("the TLS private key does not match the certificate")
        }
        let required = alpn == .required
        SSL_CTX_set_alpn_select_cb(context, required ? TLSContext.selectH2Required : TLSContext.selectH2, nil)
    }

    deinit { SSL_CTX_free(context) }

    /// Asks clients for a certificate, verified against `caPaths`, without failing the handshake.
    private static func requestClientCertificates(_ context: OpaquePointer, caPaths: [String]) throws {
        guard !caPaths.isEmpty else { return }
        guard let store = SSL_CTX_get_cert_store(context) else { throw TLSError("no certificate store") }
        for path in caPaths {
            guard X509_STORE_load_file(store, path) == 1 else {
                throw TLSError("cannot load client CA certificates from \(path)")
            }
            // The CA names sent in CertificateRequest help clients pick the right certificate.
            if let names = SSL_load_client_CA_file(path) {
                SSL_CTX_set_client_CA_list(context, names)
            }
        }
        // Always continue: the verdict is read after the handshake (SSL_get_verify_result).
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, { _, _ in 1 })
    }

    /// The PEM text of the context's certificate, e.g. for a client to trust an ephemeral one.
    public var certificatePEM: String {
        guard let cert = SSL_CTX_get0_certificate(context), let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        PEM_write_bio_X509(bio, cert)
        var pointer: UnsafeMutablePointer<CChar>?
        let length = mockapns_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(length)), as: UTF8.self)
    }

    /// Picks `h2` from the client's ALPN list; without it, answers with no ALPN so the
    /// connection may still proceed as HTTP/2 with prior knowledge.
    private static let selectH2:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
            UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
        ) -> Int32 = { _, out, outlen, input, inlen, _ in
            findH2(out, outlen, input, inlen) ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_NOACK
        }

    /// As `selectH2`, but a client whose list lacks `h2` gets a fatal alert.
    private static let selectH2Required:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
            UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
        ) -> Int32 = { _, out, outlen, input, inlen, _ in
            findH2(out, outlen, input, inlen) ? SSL_TLSEXT_ERR_OK : SSL_TLSEXT_ERR_ALERT_FATAL
        }

    /// Walks the length-prefixed protocol list and points `out` at `h2` when present.
    private static func findH2(
        _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outlen: UnsafeMutablePointer<UInt8>?,
        _ input: UnsafePointer<UInt8>?, _ inlen: UInt32
    ) -> Bool {
        guard let input, let out, let outlen else { return false }
        var index = 0
        let total = Int(inlen)
        while index < total {
            let length = Int(input[index])
            let start = index + 1
            if start + length > total { return false }
            if length == 2 && input[start] == UInt8(ascii: "h") && input[start + 1] == UInt8(ascii: "2") {
                out.pointee = input + start
                outlen.pointee = 2
                return true
            }
            index = start + length
        }
        return false
    }
}
