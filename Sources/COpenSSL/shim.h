#ifndef MOCKAPNS_COPENSSL_SHIM_H
#define MOCKAPNS_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/rand.h>

// Macros Swift cannot import, wrapped as functions and constants.
static const long mockapns_SSL_OP_NO_RENEGOTIATION = (long)SSL_OP_NO_RENEGOTIATION;
static const long mockapns_SSL_OP_NO_COMPRESSION = (long)SSL_OP_NO_COMPRESSION;
static const long mockapns_SSL_OP_CIPHER_SERVER_PREFERENCE = (long)SSL_OP_CIPHER_SERVER_PREFERENCE;
static inline long mockapns_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long mockapns_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long mockapns_SSL_CTX_set_options(SSL_CTX *ctx, long options) {
    return SSL_CTX_set_options(ctx, options);
}
static inline long mockapns_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline int mockapns_BIO_get_mem_data(BIO *bio, char **pp) {
    return (int)BIO_get_mem_data(bio, pp);
}
static inline STACK_OF(X509_NAME) *mockapns_X509_NAME_stack_new(void) {
    return sk_X509_NAME_new_null();
}

// A fresh P-256 key (EVP_EC_gen is a variadic macro Swift cannot call).
static inline EVP_PKEY *mockapns_generate_p256(void) {
    return EVP_EC_gen("P-256");
}

// A self-signed certificate for `key`, valid from now for `days` days, with subject CN=`cn`
// and the subjectAltName list `san` (e.g. "DNS:localhost,IP:127.0.0.1"). NULL on failure.
static inline X509 *mockapns_self_signed(EVP_PKEY *key, const char *cn, const char *san, long days) {
    X509 *cert = X509_new();
    if (cert == NULL) return NULL;
    X509_set_version(cert, 2);
    unsigned char serial[16];
    if (RAND_bytes(serial, sizeof serial) != 1) { X509_free(cert); return NULL; }
    serial[0] &= 0x7f;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), days * 86400L);
    X509_set_pubkey(cert, key);
    X509_NAME *name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
        (const unsigned char *)"MockAPNs ephemeral TEST ONLY", -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, san);
    if (ext != NULL) { X509_add_ext(cert, ext, -1); X509_EXTENSION_free(ext); }
    if (X509_sign(cert, key, EVP_sha256()) == 0) { X509_free(cert); return NULL; }
    return cert;
}
// Client side (HTTP2Client): SNI is a macro over SSL_ctrl.
static inline long mockapns_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
// A peer closing without close_notify reads as a clean EOF rather than an error.
static const long mockapns_SSL_OP_IGNORE_UNEXPECTED_EOF = (long)SSL_OP_IGNORE_UNEXPECTED_EOF;
// APNsAuth: X.509 names and ASN.1 sequences (macros Swift cannot import).
// RFC 2253 one-line names, keeping UTF-8 as UTF-8 rather than escaping every byte >= 0x80.
static const unsigned long mockapns_XN_FLAG_RFC2253_UTF8 = XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
static inline int mockapns_sk_ASN1_TYPE_num(const ASN1_SEQUENCE_ANY *sk) {
    return sk_ASN1_TYPE_num(sk);
}
static inline ASN1_TYPE *mockapns_sk_ASN1_TYPE_value(const ASN1_SEQUENCE_ANY *sk, int i) {
    return sk_ASN1_TYPE_value(sk, i);
}
static inline void mockapns_sk_ASN1_TYPE_pop_free(ASN1_SEQUENCE_ANY *sk) {
    sk_ASN1_TYPE_pop_free(sk, ASN1_TYPE_free);
}
#endif
