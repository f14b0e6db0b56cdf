#ifndef PINWATCH_COPENSSL_SHIM_H
#define PINWATCH_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>
#include <openssl/bn.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/bio.h>
#include <openssl/sha.h>
#include <openssl/core_names.h>
#include <openssl/ocsp.h>
#include <openssl/ct.h>

// MARK: Macro wrappers
// The Swift importer cannot see function-like macros; each wrapper below
// stands for one so that Swift never hard-codes an SSL_ctrl command number.

/// SSL_set_tlsext_host_name is a macro over SSL_ctrl.
static inline int pinwatch_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// SSL_CTX_set_session_cache_mode is a macro over SSL_CTX_ctrl.
static inline long pinwatch_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

/// SSL_CTX_set_mode is a macro over SSL_CTX_ctrl.
static inline long pinwatch_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

/// SSL_CTX_set1_chain is a macro over SSL_CTX_ctrl.
static inline long pinwatch_SSL_CTX_set1_chain(SSL_CTX *ctx, STACK_OF(X509) *chain) {
    return SSL_CTX_set1_chain(ctx, chain);
}

/// The STACK_OF(X509) accessors are type-safe macros over OPENSSL_sk_*.
static inline int pinwatch_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}
static inline X509 *pinwatch_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}
static inline STACK_OF(X509) *pinwatch_sk_X509_new_null(void) {
    return sk_X509_new_null();
}
static inline int pinwatch_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) {
    return sk_X509_push(stack, cert);
}
static inline void pinwatch_sk_X509_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

/// The STACK_OF(SCT) accessors, for the SCTs a handshake delivered.
static inline int pinwatch_sk_SCT_num(const STACK_OF(SCT) *stack) {
    return sk_SCT_num(stack);
}
static inline SCT *pinwatch_sk_SCT_value(const STACK_OF(SCT) *stack, int index) {
    return sk_SCT_value(stack, index);
}

/// OPENSSL_free is a macro that passes __FILE__ and __LINE__.
static inline void pinwatch_OPENSSL_free(void *pointer) {
    OPENSSL_free(pointer);
}

/// BIO_set_mem_eof_return is a macro over BIO_ctrl.
static inline long pinwatch_BIO_set_mem_eof_return(BIO *bio, int value) {
    return BIO_set_mem_eof_return(bio, value);
}

/// BIO_get_mem_data is a macro over BIO_ctrl.
static inline long pinwatch_BIO_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}


/// EVP_EC_gen is a macro over the variadic EVP_PKEY_Q_keygen, which Swift cannot call.
static inline EVP_PKEY *pinwatch_EVP_EC_gen(const char *curve) {
    return EVP_EC_gen(curve);
}

/// EVP_RSA_gen is a macro over the variadic EVP_PKEY_Q_keygen, which Swift cannot call.
static inline EVP_PKEY *pinwatch_EVP_RSA_gen(unsigned int bits) {
    return EVP_RSA_gen(bits);
}

/// The STACK_OF(GENERAL_NAME) constructors are type-safe macros over OPENSSL_sk_*.
static inline GENERAL_NAMES *pinwatch_sk_GENERAL_NAME_new_null(void) {
    return sk_GENERAL_NAME_new_null();
}
static inline int pinwatch_sk_GENERAL_NAME_push(GENERAL_NAMES *names, GENERAL_NAME *name) {
    return sk_GENERAL_NAME_push(names, name);
}


// MARK: Probe and certificate facts wrappers

/// XN_FLAG_RFC2253 is a macro of macros; ESC_MSB is dropped so that UTF-8
/// names stay readable instead of becoming \XX escapes.
static inline unsigned long pinwatch_XN_FLAG_RFC2253_UTF8(void) {
    return XN_FLAG_RFC2253 & ~((unsigned long)ASN1_STRFLGS_ESC_MSB);
}

/// SSL_CTX_set1_sigalgs_list is a macro over SSL_CTX_ctrl.
static inline long pinwatch_SSL_CTX_set1_sigalgs_list(SSL_CTX *ctx, const char *list) {
    return SSL_CTX_set1_sigalgs_list(ctx, list);
}

/// SSL_CTX_set_max_cert_list is a macro over SSL_CTX_ctrl.
static inline long pinwatch_SSL_CTX_set_max_cert_list(SSL_CTX *ctx, long bytes) {
    return SSL_CTX_set_max_cert_list(ctx, bytes);
}

/// The STACK_OF(GENERAL_NAME) accessors are type-safe macros over OPENSSL_sk_*.
static inline int pinwatch_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *stack) {
    return sk_GENERAL_NAME_num(stack);
}
static inline GENERAL_NAME *pinwatch_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *stack, int index) {
    return sk_GENERAL_NAME_value(stack, index);
}

// MARK: Revocation wrappers

/// SSL_set_tlsext_status_type is a macro over SSL_ctrl.
static inline long pinwatch_SSL_set_tlsext_status_type(SSL *ssl, int type) {
    return SSL_set_tlsext_status_type(ssl, type);
}

/// SSL_get_tlsext_status_ocsp_resp is a macro over SSL_ctrl.
static inline long pinwatch_SSL_get_tlsext_status_ocsp_resp(SSL *ssl, const unsigned char **response) {
    return SSL_get_tlsext_status_ocsp_resp(ssl, response);
}

/// The STACK_OF(DIST_POINT) accessors are type-safe macros over OPENSSL_sk_*.
static inline int pinwatch_sk_DIST_POINT_num(const STACK_OF(DIST_POINT) *stack) {
    return sk_DIST_POINT_num(stack);
}
static inline DIST_POINT *pinwatch_sk_DIST_POINT_value(const STACK_OF(DIST_POINT) *stack, int index) {
    return sk_DIST_POINT_value(stack, index);
}

/// The STACK_OF(X509_REVOKED) accessors are type-safe macros over OPENSSL_sk_*.
static inline int pinwatch_sk_X509_REVOKED_num(const STACK_OF(X509_REVOKED) *stack) {
    return sk_X509_REVOKED_num(stack);
}

#endif
