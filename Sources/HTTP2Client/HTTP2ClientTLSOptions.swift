/// How an `https://` connection authenticates the server and, optionally, itself.
public struct HTTP2ClientTLSOptions: Sendable, Equatable {
    /// A PEM file of CA certificates to trust instead of the system trust store.
    public var caCertificatePath: String?
    /// A PEM client certificate (chain) for mutual TLS, e.g. an APNs provider certificate.
    public var certificatePath: String?
    /// The PEM private key of `certificatePath`; nil means the key is in the certificate file.
    public var keyPath: String?
    /// Skips verification of the server's certificate and name (testing only).
    public var insecure: Bool

    /// Creates options; the defaults verify against the system trust store.
    public init(
        caCertificatePath: String? = nil, certificatePath: String? = nil, keyPath: String? = nil,
        insecure: Bool = false
    ) {
        self.caCertificatePath = caCertificatePath
        self.certificatePath = certificatePath
        self.keyPath = keyPath
        self.insecure = insecure
    }
}
