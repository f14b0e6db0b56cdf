internal import COpenSSL
import Foundation
import PinwatchProbe

/// The one owner of the `SSL_CTX` serving one identity.
///
/// A new identity gets a new context; connections already in flight keep
/// the reference `SSL_new` took on the old one, which is what makes
/// `replaceIdentity` safe while handshakes are running.
///
/// `@unchecked Sendable`: configured fully in `init`, then only passed to
/// `SSL_new`, which OpenSSL allows from any thread.
final class ServerTLSContext: @unchecked Sendable {
    let pointer: OpaquePointer
    let identity: Identity

    init(identity: Identity) throws {
        guard let leaf = identity.chain.first else {
            throw LocalServerError.tls("the identity has an empty chain")
        }
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw LocalServerError.tls("SSL_CTX_new: \(OpenSSLErrorQueue.drain())")
        }
        pointer = context
        self.identity = identity
        try Self.configure(context, identity: identity, leaf: leaf)
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    private static func configure(_ context: OpaquePointer, identity: Identity, leaf: X509Certificate) throws {
        guard leaf.withPointer({ SSL_CTX_use_certificate(context, $0) }) == 1,
            SSL_CTX_use_PrivateKey(context, identity.key.pointer) == 1,
            SSL_CTX_check_private_key(context) == 1
        else {
            throw LocalServerError.tls("the key does not fit the leaf: \(OpenSSLErrorQueue.drain())")
        }
        guard let stack = pinwatch_sk_X509_new_null() else {
            throw LocalServerError.tls("cannot allocate the chain")
        }
        // set1_chain takes its own references; the stack only lends ours.
        defer { pinwatch_sk_X509_free(stack) }
        for certificate in identity.chain.dropFirst() {
            guard certificate.withPointer({ pinwatch_sk_X509_push(stack, $0) }) > 0 else {
                throw LocalServerError.tls("cannot grow the chain")
            }
        }
        guard pinwatch_SSL_CTX_set1_chain(context, stack) == 1 else {
            throw LocalServerError.tls("SSL_CTX_set1_chain: \(OpenSSLErrorQueue.drain())")
        }
        // No tickets and no cache: each probe is a full handshake that sees
        // the current chain, and the server has nothing to send after
        // its Finished.
        _ = SSL_CTX_set_num_tickets(context, 0)
        _ = pinwatch_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
    }
}
