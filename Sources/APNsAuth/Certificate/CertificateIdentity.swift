import APNsCore
import COpenSSL

/// What an APNs client (push) certificate says about its holder: subject, topics, environments
/// and validity (Apple A4, A10; docs/apns-behaviour.md §5). Parsed once per connection with OpenSSL.
public struct CertificateIdentity: Sendable, Hashable {
    /// Extension marking a certificate for the development (sandbox) environment (node-apn `oids.js`).
    public static let sandboxOID = "1.2.840.113635.100.6.3.1"
    /// Extension marking a certificate for the production environment (node-apn `oids.js`).
    public static let productionOID = "1.2.840.113635.100.6.3.2"
    /// Extension listing VoIP-service topics (Apple A1).
    public static let voipTopicsOID = "1.2.840.113635.100.6.3.4"
    /// Extension listing topics with their types (Apple A10).
    public static let topicsOID = "1.2.840.113635.100.6.3.6"

    /// The subject in RFC 2253 form (most specific attribute last in the certificate, first here:
    /// `O=…,UID=com.x,CN=Apple Push Services: com.x`), UTF-8 kept as is.
    public let subject: String
    /// The subject's `UID` (0.9.2342.19200300.100.1.1): the base topic, the app's bundle ID
    /// (docs/apns-behaviour.md §5).
    public let uid: String?
    /// The topics extension `…6.3.6` (and VoIP topics from `…6.3.4`, typed `voip`), in order.
    public let topics: [CertificateTopic]
    /// The environments the certificate may connect to.
    ///
    /// Decision: a certificate with neither environment extension counts as universal (both):
    /// Apple's certificates always carry at least one, and test certificates made without
    /// them (pushy's, for one) are meant to work everywhere.
    public let environments: Set<APNsEnvironment>
    /// Whether the certificate carries an environment extension (`false`: `environments` is
    /// both by the decision above).
    public let declaresEnvironment: Bool
    /// Validity start, seconds since the Unix epoch.
    public let notBefore: Double
    /// Validity end, seconds since the Unix epoch.
    public let notAfter: Double
    /// Every topic the certificate covers: `uid` and each listed topic, without duplicates.
    public let coveredTopics: Set<String>
    /// The topic used when `apns-topic` is omitted: the only covered topic, or `nil` when the
    /// certificate covers several (or none) (Apple A1, A10).
    public let defaultTopic: String?

    /// An identity from parts (tests, or certificates parsed elsewhere); `coveredTopics` and
    /// `defaultTopic` are derived. Times in seconds since the Unix epoch.
    public init(
        subject: String, uid: String?, topics: [CertificateTopic], environments: Set<APNsEnvironment>,
        declaresEnvironment: Bool, notBefore: Double, notAfter: Double
    ) {
        self.subject = subject
        self.uid = uid
        self.topics = topics
        self.environments = environments
        self.declaresEnvironment = declaresEnvironment
        self.notBefore = notBefore
        self.notAfter = notAfter
        var covered = Set(topics.map(\.topic))
        if let uid { covered.insert(uid) }
        coveredTopics = covered
        defaultTopic = covered.count == 1 ? covered.first : nil
    }

    /// Parses a certificate OpenSSL already holds (an `X509 *`, e.g. from
    /// `SSL_get0_peer_certificate`); the caller keeps ownership.
    public init(x509: OpaquePointer) throws {
        self = try X509Reader.identity(of: x509)
    }

    /// Parses a DER-encoded certificate.
    public init(der: [UInt8]) throws {
        let certificate: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let certificate else { throw AuthMaterialError.openSSL("not a DER X.509 certificate") }
        defer { X509_free(certificate) }
        try self.init(x509: certificate)
    }

    /// Parses the first certificate in PEM text.
    public init(pem: String, source: String = "certificate") throws {
        var bytes = Array(pem.utf8)
        let certificate: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let certificate else { throw AuthMaterialError.openSSL("\(source): no PEM certificate found") }
        defer { X509_free(certificate) }
        try self.init(x509: certificate)
    }

    /// Parses a PEM certificate file.
    public init(contentsOfFile path: String) throws {
        try self.init(pem: try PEMFile.read(path), source: path)
    }

    /// Whether the certificate covers `topic` exactly.
    ///
    /// Decision: no suffix is implied. A `<bundle>.voip` or `.complication` topic must be listed
    /// in the topics extension (Apple A1: certificates allow only the push types whose topics
    /// appear there), so a certificate with only `UID` covers just that topic.
    public func covers(topic: String) -> Bool { coveredTopics.contains(topic) }

    /// Whether `nowSeconds` (seconds since the Unix epoch) is within the validity period.
    public func isValid(atSeconds nowSeconds: Double) -> Bool {
        nowSeconds >= notBefore && nowSeconds <= notAfter
    }
}
