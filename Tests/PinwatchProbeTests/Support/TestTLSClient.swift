import COpenSSL
import Foundation

@testable import PinwatchProbe

/// A tiny blocking OpenSSL client: handshakes over an already connected
/// socket and returns the certificates the server sent, in order.
///
/// It verifies nothing, on purpose: the tests compare the chain bytes.
enum TestTLSClient {
    enum Failure: Error, CustomStringConvertible {
        case setup(String)
        case handshake(String)
        var description: String {
            switch self {
            case .setup(let reason): return "setup: \(reason)"
            case .handshake(let reason): return "handshake: \(reason)"
            }
        }
    }

    static func fetchChain(port: Int, serverName: String = "localhost") throws -> [[UInt8]] {
        let socket = try BlockingSocket(port: port)
        return try handshake(over: socket, serverName: serverName)
    }

    static func handshake(over socket: BlockingSocket, serverName: String = "localhost") throws -> [[UInt8]] {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw Failure.setup("SSL_CTX_new") }
        defer { SSL_CTX_free(context) }
        guard let ssl = SSL_new(context) else { throw Failure.setup("SSL_new") }
        defer { SSL_free(ssl) }
        guard SSL_set_fd(ssl, socket.descriptor) == 1,
            pinwatch_SSL_set_tlsext_host_name(ssl, serverName) == 1
        else { throw Failure.setup("SSL_set_fd / SNI") }
        guard SSL_connect(ssl) == 1 else {
            throw Failure.handshake(OpenSSLErrorQueue.drain())
        }
        guard let stack = SSL_get_peer_cert_chain(ssl) else { return [] }
        return (0..<pinwatch_sk_X509_num(stack)).compactMap { index in
            pinwatch_sk_X509_value(stack, index).map { X509Certificate(borrowing: $0).der }
        }
    }
}

/// Checks chains with OpenSSL's own X509_verify_cert, independent of the
/// code under test.
enum TestChainVerifier {
    /// 0 (X509_V_OK) when `leaf` chains to one of `roots` through
    /// `intermediates` (and matches `hostname`, if given); else the error.
    static func verify(
        _ leaf: X509Certificate, intermediates: [X509Certificate] = [], roots: [X509Certificate], hostname: String? = nil
    ) -> Int32 {
        guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new(),
            let untrusted = pinwatch_sk_X509_new_null()
        else { return -1 }
        defer {
            X509_STORE_CTX_free(context)
            X509_STORE_free(store)
            pinwatch_sk_X509_free(untrusted)
        }
        for root in roots { X509_STORE_add_cert(store, root.borrowedPointer) }
        for intermediate in intermediates { _ = pinwatch_sk_X509_push(untrusted, intermediate.borrowedPointer) }
        guard X509_STORE_CTX_init(context, store, leaf.borrowedPointer, untrusted) == 1 else { return -1 }
        if let hostname {
            X509_VERIFY_PARAM_set1_host(X509_STORE_CTX_get0_param(context), hostname, 0)
        }
        return X509_verify_cert(context) == 1 ? X509_V_OK : X509_STORE_CTX_get_error(context)
    }
}

extension X509Certificate {
    /// The tests check certificates with OpenSSL directly. The pointer is
    /// borrowed from a certificate the test keeps alive for every use.
    var borrowedPointer: OpaquePointer { withPointer { $0 } }
}
