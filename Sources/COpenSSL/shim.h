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

// Macros Swift cannot import, wrapped as functions.
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
#endif
