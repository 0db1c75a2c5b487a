import COpenSSL
import Glibc
import SystemSupport

/// Makes the client `SSL` for one connection and runs its handshake: TLS 1.2+, ALPN `h2`,
/// SNI, server verification (CA file or system store, host name or IP address), optional
/// client certificate.
enum ClientTLSHandshake {
    /// Handshakes on the connected nonblocking `fd` before `deadline`; returns the `SSL *`
    /// (owned by the caller) and the ALPN protocol the server selected, if any.
    static func run(
        fd: Int32, host: String, options: HTTP2ClientTLSOptions, deadline: UInt64,
        timeout: Double
    ) throws(HTTP2ClientError) -> (ssl: OpaquePointer, alpn: String?) {
        // A write to a socket the peer closed must fail with EPIPE, not kill the process;
        // OpenSSL writes with plain write(2), so MSG_NOSIGNAL is not available.
        signal(SIGPIPE, SIG_IGN)
        ERR_clear_error()
        let context = try makeContext(options)
        defer { SSL_CTX_free(context) }  // the SSL keeps its own reference
        guard let ssl = SSL_new(context) else { throw .tlsSetup("SSL_new failed: \(OpenSSLErrorQueue.drain() ?? "")") }
        var keep = false
        defer { if !keep { SSL_free(ssl) } }
        SSL_set_fd(ssl, fd)
        SSL_set_connect_state(ssl)
        if isIPAddress(host) {
            // No SNI for addresses (RFC 6066); the certificate must list the IP.
            if !options.insecure { X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) }
        } else {
            _ = mockapns_SSL_set_tlsext_host_name(ssl, host)
            if !options.insecure { SSL_set1_host(ssl, host) }
        }
        while true {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if result == 1 { break }
            let code = SSL_get_error(ssl, result)
            let events: Int32
            switch code {
            case SSL_ERROR_WANT_READ: events = POLLIN
            case SSL_ERROR_WANT_WRITE: events = POLLOUT
            default: throw failure(ssl, code)
            }
            var poller = pollfd(fd: fd, events: Int16(events), revents: 0)
            let ready = poll(&poller, 1, MonotonicClock.pollTimeout(until: deadline))
            if ready == 0 { throw .timedOut(what: "in the TLS handshake with \(host)", seconds: timeout) }
            if ready < 0 && errno != EINTR { throw .io(String(cString: strerror(errno))) }
        }
        var name: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &name, &length)
        var alpn: String?
        if let name, length > 0 {
            alpn = String(decoding: UnsafeBufferPointer(start: name, count: Int(length)), as: UTF8.self)
        }
        keep = true
        return (ssl, alpn)
    }

    private static func makeContext(_ options: HTTP2ClientTLSOptions) throws(HTTP2ClientError) -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .tlsSetup("SSL_CTX_new failed: \(OpenSSLErrorQueue.drain() ?? "")")
        }
        var keep = false
        defer { if !keep { SSL_CTX_free(context) } }
        _ = mockapns_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = mockapns_SSL_CTX_set_options(
            context, mockapns_SSL_OP_IGNORE_UNEXPECTED_EOF | mockapns_SSL_OP_NO_RENEGOTIATION)
        _ = mockapns_SSL_CTX_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        let protocols: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        _ = SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count))  // 0 = success
        if options.insecure {
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if let path = options.caCertificatePath {
                guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                    throw .tlsSetup(
                        "cannot load CA certificates from \(path): \(OpenSSLErrorQueue.drain() ?? "no PEM certificate found")"
                    )
                }
            } else if SSL_CTX_set_default_verify_paths(context) != 1 {
                throw .tlsSetup("cannot load the system trust store: \(OpenSSLErrorQueue.drain() ?? "")")
            }
        }
        if let certificate = options.certificatePath {
            guard SSL_CTX_use_certificate_chain_file(context, certificate) == 1 else {
                throw .tlsSetup(
                    "cannot load the client certificate from \(certificate): \(OpenSSLErrorQueue.drain() ?? "no PEM certificate found")"
                )
            }
            let key = options.keyPath ?? certificate
            guard SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
                let reason = OpenSSLErrorQueue.drain() ?? "no PEM private key found"
                if reason.contains("mismatch") {
                    throw .tlsSetup("the client private key \(key) does not match the certificate \(certificate)")
                }
                if !holdsPEMPrivateKey(key) {
                    throw .clientKeyMissing(path: key, inCertificateFile: options.keyPath == nil)
                }
                throw .tlsSetup("cannot load the client private key from \(key): \(reason)")
            }
            guard SSL_CTX_check_private_key(context) == 1 else {
                throw .tlsSetup("the client private key \(key) does not match the certificate \(certificate)")
            }
        }
        keep = true
        return context
    }

    /// The error for a failed handshake step: a verification failure when the server's
    /// certificate was rejected, else OpenSSL's reason or the socket's.
    private static func failure(_ ssl: OpaquePointer, _ code: Int32) -> HTTP2ClientError {
        let verify = SSL_get_verify_result(ssl)
        let queued = OpenSSLErrorQueue.drain()
        if verify != X509_V_OK {
            return .tlsVerificationFailed(String(cString: X509_verify_cert_error_string(verify)))
        }
        if let queued {
            // The server's fatal alert when it speaks none of our ALPN protocols (only h2).
            if queued.contains("no application protocol") { return .alpnNotH2(nil) }
            return .tlsFailed(queued)
        }
        if code == SSL_ERROR_SYSCALL {
            if errno == 0 || errno == ECONNRESET || errno == EPIPE {
                return .tlsFailed("the server closed the connection during the handshake")
            }
            return .io(String(cString: strerror(errno)))
        }
        return .tlsFailed("handshake failed (SSL error \(code))")
    }

    /// False when `path` (readable: the caller checked) has no PEM private-key block
    /// (`PRIVATE KEY`, `EC PRIVATE KEY`, `RSA PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`): OpenSSL
    /// then only says "unsupported" or "no start line".
    private static func holdsPEMPrivateKey(_ path: String) -> Bool {
        guard let file = fopen(path, "rb") else { return true }  // unreadable: keep OpenSSL's reason
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self).contains("PRIVATE KEY-----")
    }

    /// True for a numeric IPv4 or IPv6 address.
    static func isIPAddress(_ host: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }
}
