internal import COpenSSL
import Foundation
import PinwatchCore

/// A chain as a server would send it, judged without dialling (`preflight`):
/// verified against the host's trust store by the same context, verify
/// callback and chain collection a probe's handshake uses, so a candidate
/// chain and a live one get the same `ProbeResult`.
package enum ServedChain {
    package enum Problem: Error, Hashable, Sendable, CustomStringConvertible {
        case empty
        case tooLong(Int)
        case leafDoesNotName(String)
        case verifier(String)

        package var description: String {
            switch self {
            case .empty:
                return "the bundle holds no certificate"
            case .tooLong(let count):
                return "the bundle holds \(count) certificates (a probe refuses more than \(ChainCollector.maximumSentCertificates))"
            case .leafDoesNotName(let name):
                return "the first certificate (the leaf) does not name \(TerminalText.sanitize(name)): a client would refuse it"
            case .verifier(let reason):
                return "cannot verify the chain: \(reason)"
            }
        }
    }

    /// The result a probe of `serverName` would have had, had the server
    /// sent `chain` (leaf first), verified against `trust` now.
    package static func result(of chain: [X509Certificate], serverName: String, trust: TrustSource) throws -> ProbeResult {
        guard let leaf = chain.first else { throw Problem.empty }
        guard chain.count <= ChainCollector.maximumSentCertificates else { throw Problem.tooLong(chain.count) }
        let isIP = SocketAddress.isIPLiteral(serverName)
        let bareName = serverName.hasPrefix("[") ? String(serverName.dropFirst().dropLast()) : serverName
        let named = leaf.withPointer { pointer in
            isIP ? X509_check_ip_asc(pointer, bareName, 0) == 1 : X509_check_host(pointer, bareName, 0, 0, nil) == 1
        }
        _ = OpenSSLErrorQueue.drainCodes()
        guard named else { throw Problem.leafDoesNotName(serverName) }
        let context: TLSContext
        do {
            context = try TLSContext(trust: trust)
        } catch {
            throw Problem.verifier("\(error)")
        }
        return try verify(chain, isIP: isIP, name: bareName, in: context)
    }

    private static func verify(_ chain: [X509Certificate], isIP: Bool, name: String, in context: TLSContext) throws -> ProbeResult {
        try withExtendedLifetime(chain) { try verifyBorrowed(chain, isIP: isIP, name: name, in: context) }
    }

    private static func verifyBorrowed(_ chain: [X509Certificate], isIP: Bool, name: String, in context: TLSContext) throws
        -> ProbeResult
    {
        // `chain` owns the certificates for this whole call; the stack only borrows them.
        let pointers = chain.map { certificate in certificate.withPointer { $0 } }
        guard let store = SSL_CTX_get_cert_store(context.pointer), let storeContext = X509_STORE_CTX_new() else {
            throw Problem.verifier("out of memory")
        }
        defer { X509_STORE_CTX_free(storeContext) }
        guard let sent = X509Stack.borrowing(pointers) else { throw Problem.verifier("out of memory") }
        defer { pinwatch_sk_X509_free(sent) }
        // As libssl sets up a client's verification of the server's chain:
        // the whole chain as sent is untrusted input, the `ssl_server`
        // purpose, the context's depth, and the name the handshake checks.
        guard X509_STORE_CTX_init(storeContext, store, pointers[0], sent) == 1,
            X509_STORE_CTX_set_default(storeContext, "ssl_server") == 1,
            let parameters = X509_STORE_CTX_get0_param(storeContext)
        else { throw Problem.verifier(OpenSSLErrorQueue.drain()) }
        X509_VERIFY_PARAM_set_depth(parameters, TLSContext.maximumVerifyDepth)
        if isIP {
            _ = X509_VERIFY_PARAM_set1_ip_asc(parameters, name)
        } else {
            _ = X509_VERIFY_PARAM_set1_host(parameters, name, 0)
        }
        // The probe's context keeps verifying past an error so the whole
        // chain is collected; the same here. A precertificate (a chain
        // logged in Certificate Transparency, judged before its certificate
        // is issued) stands for the certificate it announces: its poison,
        // at the leaf, is the one refusal forgiven, and the error before it
        // (which OpenSSL's report of the poison overwrote) is put back.
        let lastRefusal = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        lastRefusal.initialize(to: X509_V_OK)
        defer { lastRefusal.deallocate() }
        _ = X509_STORE_CTX_set_ex_data(storeContext, 0, lastRefusal)
        X509_STORE_CTX_set_verify_cb(storeContext) { _, context in
            guard let context, let stored = X509_STORE_CTX_get_ex_data(context, 0) else { return 1 }
            let lastRefusal = stored.assumingMemoryBound(to: Int32.self)
            let error = X509_STORE_CTX_get_error(context)
            if error == X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION, X509_STORE_CTX_get_error_depth(context) == 0,
                let leaf = X509_STORE_CTX_get_current_cert(context), PrecertificateTBS.isRefusedOnlyForItsPoison(leaf)
            {
                X509_STORE_CTX_set_error(context, lastRefusal.pointee)
            } else if error != X509_V_OK {
                lastRefusal.pointee = error
            }
            return 1
        }
        _ = context.verifiedChains.verify(storeContext)
        _ = OpenSSLErrorQueue.drainCodes()
        switch ChainCollector.collect(from: storeContext, sent: chain, issuerFacts: IssuerFactsCache()) {
        case .failure(let failure):
            throw Problem.verifier(failure.message)
        case .success(let outcome):
            return ProbeResult(
                chain: outcome.chain, sentCount: outcome.sentCount, trusted: outcome.trusted, trustError: outcome.trustError,
                finishedAt: Date())
        }
    }
}
