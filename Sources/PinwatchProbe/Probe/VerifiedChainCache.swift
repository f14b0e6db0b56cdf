internal import COpenSSL
import Foundation

/// Chains verified before, so a host polled every cycle does not cost the
/// signature checks of its chain again (on a 2-core machine where client
/// and servers share the cores, client CPU per host is throughput).
///
/// Keyed by the SHA-256 of every certificate the server sent, in order; one
/// cache per TLS context, so per trust store (a reload makes a new one). A hit is served only when the
/// same bytes verified before *and* everything that depends on the moment
/// or the connection still holds: every certificate of the built chain is
/// within its validity period now, and the leaf matches this connection's
/// host name or IP address. Anything else (a miss, an entry older than an
/// hour, a chain that did not verify, a certificate out of its validity, a
/// name mismatch) goes through `X509_verify_cert` in full, so the error
/// reported is OpenSSL's own; before that, a new leaf under an
/// intermediate verified earlier is verified by OpenSSL up to that
/// intermediate (`VerifiedIssuers`, with its own guards). The TLS handshake
/// still checks the server's CertificateVerify (its proof of holding the
/// leaf's key) every time. "Now" is the clock the engine was given, for
/// the full verification as much as for the cache.
final class VerifiedChainCache: @unchecked Sendable {
    static let capacity = 10_000
    static let lifetime: TimeInterval = 3600

    /// A verified chain, remembered as the digests of its issuers: the
    /// leaf comes from the connection at hand (the same bytes, by the key),
    /// the issuers are shared by every entry, so an entry costs a few
    /// hundred bytes whatever the chain (10,000 hosts: about 2 MB).
    private struct Entry {
        var issuerKeys: [[UInt8]]
        var storedAt: Date
    }

    private let lock = NSLock()
    private var entries: [[UInt8]: Entry] = [:]
    /// Up-referenced issuer certificates by the SHA-256 of their DER.
    private var issuers: [[UInt8]: OpaquePointer] = [:]
    private var hitCount = 0
    private var anchoredCount = 0
    private var missCount = 0
    /// New leaves under intermediates verified before.
    private let anchors: VerifiedIssuers
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
        anchors = VerifiedIssuers()
    }

    deinit {
        issuers.values.forEach { X509_free($0) }
    }

    /// Chains served without verifying again, chains verified from the
    /// leaf up to an intermediate verified before (`VerifiedIssuers`), and
    /// chains verified in full.
    var counts: (hits: Int, anchored: Int, misses: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (hitCount, anchoredCount, missCount)
    }

    /// In place of `X509_verify_cert` (`SSL_CTX_set_cert_verify_callback`).
    func verify(_ context: OpaquePointer) -> Int32 {
        let moment = now()
        X509_STORE_CTX_set_time(context, 0, time_t(moment.timeIntervalSince1970.rounded(.down)))
        guard let (key, sent) = Self.key(of: context) else { return X509_verify_cert(context) }
        if let leaf = X509_STORE_CTX_get0_cert(context),
            let stack = verifiedChain(for: key, leaf: leaf, context: context, at: moment)
        {
            X509_STORE_CTX_set0_verified_chain(context, stack)
            X509_STORE_CTX_set_error(context, X509_V_OK)
            count(\.hitCount)
            return 1
        }
        if let stack = anchors.verifiedChain(context, sent: sent, at: moment) {
            X509_STORE_CTX_set0_verified_chain(context, stack)
            X509_STORE_CTX_set_error(context, X509_V_OK)
            count(\.anchoredCount)
            store(key, chain: stack, at: moment)
            return 1
        }
        let result = X509_verify_cert(context)
        count(\.missCount)
        if result == 1, X509_STORE_CTX_get_error(context) == X509_V_OK, let built = X509_STORE_CTX_get0_chain(context) {
            store(key, chain: built, at: moment)
            anchors.remember(
                X509Stack.certificates(built), untrustedCount: Int(X509_STORE_CTX_get_num_untrusted(context)), at: moment)
        }
        return result
    }

    // MARK: Entries

    /// The cached chain with its own references, when the entry is fresh
    /// and still holds for this connection; nil sends it to full verification.
    private func verifiedChain(for key: [UInt8], leaf: OpaquePointer, context: OpaquePointer, at moment: Date) -> OpaquePointer? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key] else { return nil }
        guard moment.timeIntervalSince(entry.storedAt) < Self.lifetime else {
            entries.removeValue(forKey: key)
            return nil
        }
        let found = entry.issuerKeys.compactMap { issuers[$0] }
        guard found.count == entry.issuerKeys.count else { return nil }
        let chain = [leaf] + found
        guard Self.holds(chain, for: context, at: moment) else { return nil }
        return X509Stack.retaining(chain)
    }

    private func store(_ key: [UInt8], chain stack: OpaquePointer, at moment: Date) {
        let chain = X509Stack.certificates(stack)
        guard chain.count == Int(pinwatch_sk_X509_num(stack)), !chain.isEmpty else { return }
        let issuerChain = chain.dropFirst().map { (certificate: $0, key: Self.digest($0)) }
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= Self.capacity {
            // A fleet larger than the cache verifies in full; no eviction order to keep.
            entries.removeAll()
            issuers.values.forEach { X509_free($0) }
            issuers.removeAll()
        }
        for issuer in issuerChain where issuers[issuer.key] == nil {
            X509_up_ref(issuer.certificate)
            issuers[issuer.key] = issuer.certificate
        }
        entries[key] = Entry(issuerKeys: issuerChain.map(\.key), storedAt: moment)
    }

    private func count(_ counter: ReferenceWritableKeyPath<VerifiedChainCache, Int>) {
        lock.lock()
        self[keyPath: counter] += 1
        lock.unlock()
    }

    // MARK: What a hit must still satisfy

    /// SHA-256 over the digests of the certificates sent, in order.
    private static func key(of context: OpaquePointer) -> (key: [UInt8], sent: Set<[UInt8]>)? {
        guard let sent = X509_STORE_CTX_get0_untrusted(context) else { return nil }
        let count = pinwatch_sk_X509_num(sent)
        guard count > 0 else { return nil }
        var digests: [UInt8] = []
        var each = Set<[UInt8]>()
        for index in 0..<count {
            guard let certificate = pinwatch_sk_X509_value(sent, index) else { return nil }
            let der = X509Certificate(borrowing: certificate).der
            guard !der.isEmpty else { return nil }
            let digest = SHA256Digest.of(der)
            digests += digest
            each.insert(digest)
        }
        return (SHA256Digest.of(digests), each)
    }

    /// SHA-256 of a certificate's DER: how both caches name certificates.
    static func digest(_ certificate: OpaquePointer) -> [UInt8] {
        SHA256Digest.of(X509Certificate(borrowing: certificate).der)
    }

    static func isWithinValidity(_ certificate: OpaquePointer, at moment: Date) -> Bool {
        var time = time_t(moment.timeIntervalSince1970.rounded(.down))
        return X509_cmp_time(X509_get0_notBefore(certificate), &time) < 0 && X509_cmp_time(X509_get0_notAfter(certificate), &time) > 0
    }

    /// Every level within its validity period at `moment`, and the leaf
    /// naming this connection's host (or IP address) as the verifier would check.
    private static func holds(_ chain: [OpaquePointer], for context: OpaquePointer, at moment: Date) -> Bool {
        guard chain.allSatisfy({ isWithinValidity($0, at: moment) }) else { return false }
        guard let leaf = chain.first, let parameters = X509_STORE_CTX_get0_param(context) else { return false }
        if let host = X509_VERIFY_PARAM_get0_host(parameters, 0) {
            let flags = X509_VERIFY_PARAM_get_hostflags(parameters)
            guard X509_check_host(leaf, host, 0, flags, nil) == 1 else { return false }
        }
        if let address = X509_VERIFY_PARAM_get1_ip_asc(parameters) {
            defer { pinwatch_OPENSSL_free(address) }
            guard X509_check_ip_asc(leaf, address, 0) == 1 else { return false }
        }
        return true
    }
}
