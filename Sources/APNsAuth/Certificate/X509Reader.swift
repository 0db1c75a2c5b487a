import APNsCore
import COpenSSL
import Foundation

/// Reads the parts of an X.509 certificate that APNs uses, with OpenSSL (docs/apns-behaviour.md §5).
enum X509Reader {
    static func identity(of certificate: OpaquePointer) throws -> CertificateIdentity {
        guard let name = X509_get_subject_name(certificate) else {
            throw AuthMaterialError("certificate has no subject")
        }
        guard let notBefore = seconds(X509_get0_notBefore(certificate)),
            let notAfter = seconds(X509_get0_notAfter(certificate))
        else {
            throw AuthMaterialError.openSSL("certificate validity dates are unreadable")
        }
        var topics = extensionContent(certificate, oid: CertificateIdentity.topicsOID).map(pairedTopics) ?? []
        if let voip = extensionContent(certificate, oid: CertificateIdentity.voipTopicsOID) {
            topics += strings(in: voip).map { CertificateTopic(topic: $0, types: ["voip"]) }
        }
        let sandbox = extensionContent(certificate, oid: CertificateIdentity.sandboxOID) != nil
        let production = extensionContent(certificate, oid: CertificateIdentity.productionOID) != nil
        var environments = Set<APNsEnvironment>()
        if sandbox { environments.insert(.sandbox) }
        if production { environments.insert(.production) }
        ERR_clear_error()
        return CertificateIdentity(
            subject: rfc2253(name), uid: uid(name), topics: topics,
            environments: environments.isEmpty ? Set(APNsEnvironment.allCases) : environments,
            declaresEnvironment: !environments.isEmpty,
            notBefore: notBefore, notAfter: notAfter)
    }

    /// The name as one RFC 2253 line.
    private static func rfc2253(_ name: OpaquePointer) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, mockapns_XN_FLAG_RFC2253_UTF8) >= 0 else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let length = mockapns_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The first `UID` attribute of the name.
    private static func uid(_ name: OpaquePointer) -> String? {
        let index = X509_NAME_get_index_by_NID(name, NID_userId, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index) else { return nil }
        return utf8(X509_NAME_ENTRY_get_data(entry))
    }

    /// The DER inside the extension `oid` (its OCTET STRING's content), or `nil` when absent.
    private static func extensionContent(_ certificate: OpaquePointer, oid: String) -> [UInt8]? {
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(certificate, object, -1)
        guard index >= 0, let ext = X509_get_ext(certificate, index),
            let data = X509_EXTENSION_get_data(ext)
        else { return nil }
        return bytes(of: data)
    }

    /// Topics in pushy's encoding of `…6.3.6` (docs/apns-behaviour.md §5): a SEQUENCE in which each string
    /// is a topic and each nested SEQUENCE holds the types of the topic before it. Elements of
    /// other kinds are skipped; content that is not a SEQUENCE yields no topics, so the
    /// certificate still works on its `UID` (Apple's exact DER is UNVERIFIED).
    private static func pairedTopics(_ der: [UInt8]) -> [CertificateTopic] {
        var result: [(topic: String, types: [String])] = []
        forEachElement(of: der) { type, value in
            if type == V_ASN1_SEQUENCE {
                if !result.isEmpty, let inner = bytes(of: value) {
                    result[result.count - 1].types += strings(in: inner)
                }
            } else if let text = utf8(value, type: type) {
                result.append((text, []))
            }
        }
        return result.map { CertificateTopic(topic: $0.topic, types: $0.types) }
    }

    /// The strings in `der`: its elements when it is a SEQUENCE, else itself when it is a string.
    private static func strings(in der: [UInt8]) -> [String] {
        var result: [String] = []
        let isSequence = forEachElement(of: der) { type, value in
            if let text = utf8(value, type: type) { result.append(text) }
        }
        if isSequence { return result }
        let single: UnsafeMutablePointer<ASN1_TYPE>? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ASN1_TYPE(nil, &cursor, buffer.count)
        }
        guard let single else {
            ERR_clear_error()
            return []
        }
        defer { ASN1_TYPE_free(single) }
        return utf8(single.pointee.value.asn1_string, type: ASN1_TYPE_get(single)).map { [$0] } ?? []
    }

    /// Calls `body` with each element's ASN.1 type and string value when `der` is a SEQUENCE
    /// (parsed by `d2i_ASN1_SEQUENCE_ANY`); a nested SEQUENCE's value is its whole encoding.
    /// - Returns: whether `der` was a SEQUENCE.
    @discardableResult
    private static func forEachElement(of der: [UInt8], _ body: (Int32, UnsafeMutablePointer<ASN1_STRING>?) -> Void)
        -> Bool
    {
        let sequence: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ASN1_SEQUENCE_ANY(nil, &cursor, buffer.count)
        }
        guard let sequence else {
            ERR_clear_error()
            return false
        }
        defer { mockapns_sk_ASN1_TYPE_pop_free(sequence) }
        for index in 0..<mockapns_sk_ASN1_TYPE_num(sequence) {
            guard let element = mockapns_sk_ASN1_TYPE_value(sequence, index) else { continue }
            body(ASN1_TYPE_get(element), element.pointee.value.asn1_string)
        }
        return true
    }

    /// `string` as UTF-8 text when `type` is a character-string type.
    private static func utf8(_ string: UnsafeMutablePointer<ASN1_STRING>?, type: Int32) -> String? {
        switch type {
        case V_ASN1_UTF8STRING, V_ASN1_IA5STRING, V_ASN1_PRINTABLESTRING, V_ASN1_BMPSTRING,
            V_ASN1_UNIVERSALSTRING, V_ASN1_VISIBLESTRING, V_ASN1_T61STRING:
            return utf8(string)
        default:
            return nil
        }
    }

    /// Any ASN.1 string converted to UTF-8 by OpenSSL.
    private static func utf8(_ string: UnsafeMutablePointer<ASN1_STRING>?) -> String? {
        guard let string else { return nil }
        var out: UnsafeMutablePointer<UInt8>?
        let length = ASN1_STRING_to_UTF8(&out, string)
        guard length >= 0, let out else {
            ERR_clear_error()
            return nil
        }
        defer { CRYPTO_free(out, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    private static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8]? {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    /// An ASN.1 time as seconds since the Unix epoch.
    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Double? {
        guard let time else { return nil }
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Double(timegm(&parts))
    }
}
