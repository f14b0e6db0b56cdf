internal import COpenSSL
import Foundation

/// Intermediates whose signatures up to a root of the trust store verified
/// before: a new leaf under one of them is verified by OpenSSL from the leaf
/// up to that intermediate (`X509_V_FLAG_PARTIAL_CHAIN`, this connection's
/// host, purpose and security level), and the levels above are the ones
/// verified then. A fleet under a few intermediates (most of the web) costs
/// one chain signature per host instead of one per level.
///
/// What a full verification would refuse must be refused here too, so an
/// intermediate becomes an anchor only when
/// - every certificate above it came from the trust store, not from the
///   server (a later server that leaves one out would fail in full), and
/// - nothing from it up to the root carries name or policy constraints,
///   and nothing above it a path length (they bind every level below, and
///   a check from the anchor down would not apply those of the levels
///   above it);
/// and a chain is served through an anchor only when the server sent that
/// intermediate itself (a server that leaves it out fails in full), the
/// chain built is longer than the leaf, the anchor is younger than an
/// hour, and every level above it is within its validity at the moment of
/// the verification (the engine's clock). Anything else goes to the full
/// verification, whose errors are OpenSSL's own.
final class VerifiedIssuers: @unchecked Sendable {
    /// More than the intermediates of any real fleet; beyond it, new ones
    /// are simply not remembered.
    static let capacity = 1_000

    private struct Anchor {
        /// The levels above the intermediate, up to the root, up-referenced.
        var above: [OpaquePointer]
        var storedAt: Date
    }

    private let lock = NSLock()
    /// The anchors as a trust store of their own, for the partial chains.
    private var store: OpaquePointer?
    private var anchors: [[UInt8]: Anchor] = [:]

    deinit {
        anchors.values.forEach { $0.above.forEach { X509_free($0) } }
        if let store { X509_STORE_free(store) }
    }

    /// Takes an intermediate of a chain that verified in full as an anchor:
    /// the highest certificate the server sent, when it is not the leaf
    /// and every level above it came from the trust store. `chain` runs
    /// from the leaf to the root; its first `untrustedCount` levels came
    /// from the server (OpenSSL builds from the trust store first).
    func remember(_ chain: [OpaquePointer], untrustedCount: Int, at moment: Date) {
        let index = untrustedCount - 1
        guard index >= 1, index <= chain.count - 2 else { return }
        guard !chain[index...].contains(where: Self.constrains),
            !chain[(index + 1)...].contains(where: { X509_get_pathlen($0) >= 0 })
        else { return }
        let anchor = chain[index]
        let digest = VerifiedChainCache.digest(anchor)
        let above = Array(chain[(index + 1)...])
        lock.lock()
        defer { lock.unlock() }
        if store == nil { store = X509_STORE_new() }
        guard let store else { return }
        if let previous = anchors[digest] {
            previous.above.forEach { X509_free($0) }
        } else {
            guard anchors.count < Self.capacity else { return }
            if X509_STORE_add_cert(store, anchor) != 1 { _ = OpenSSLErrorQueue.drainCodes() }
        }
        above.forEach { X509_up_ref($0) }
        anchors[digest] = Anchor(above: above, storedAt: moment)
    }

    /// The verified chain for this connection through a remembered
    /// intermediate, with its own references; nil sends it to full verification.
    func verifiedChain(_ context: OpaquePointer, sent: Set<[UInt8]>, at moment: Date) -> OpaquePointer? {
        lock.lock()
        guard let store, !anchors.isEmpty else {
            lock.unlock()
            return nil
        }
        X509_STORE_up_ref(store)
        lock.unlock()
        defer { X509_STORE_free(store) }
        guard let below = Self.chainToAnchor(context, store: store) else { return nil }
        defer { below.forEach { X509_free($0) } }
        guard below.count >= 2, let top = below.last else { return nil }
        let topDigest = VerifiedChainCache.digest(top)
        guard sent.contains(topDigest) else { return nil }
        lock.lock()
        guard let anchor = anchors[topDigest], moment.timeIntervalSince(anchor.storedAt) < VerifiedChainCache.lifetime else {
            lock.unlock()
            return nil
        }
        let above = anchor.above
        above.forEach { X509_up_ref($0) }
        lock.unlock()
        defer { above.forEach { X509_free($0) } }
        let chain = below + above
        guard chain.count <= Int(TLSContext.maximumVerifyDepth),
            above.allSatisfy({ VerifiedChainCache.isWithinValidity($0, at: moment) })
        else { return nil }
        return X509Stack.retaining(chain)
    }

    /// OpenSSL's verification of this connection's leaf up to an anchor,
    /// with the connection's parameters: the chain it built, up-referenced
    /// (the caller drops them).
    private static func chainToAnchor(_ context: OpaquePointer, store: OpaquePointer) -> [OpaquePointer]? {
        guard let leaf = X509_STORE_CTX_get0_cert(context), let connection = X509_STORE_CTX_get0_param(context),
            let partial = X509_STORE_CTX_new()
        else { return nil }
        defer { X509_STORE_CTX_free(partial) }
        guard X509_STORE_CTX_init(partial, store, leaf, X509_STORE_CTX_get0_untrusted(context)) == 1,
            let parameters = X509_STORE_CTX_get0_param(partial),
            X509_VERIFY_PARAM_set1(parameters, connection) == 1,
            X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) == 1,
            X509_verify_cert(partial) == 1, X509_STORE_CTX_get_error(partial) == X509_V_OK,
            let built = X509_STORE_CTX_get0_chain(partial)
        else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        let chain = X509Stack.certificates(built)
        chain.forEach { X509_up_ref($0) }
        return chain
    }

    /// Name constraints and the policy extensions that constrain the levels below.
    private static func constrains(_ certificate: OpaquePointer) -> Bool {
        [NID_name_constraints, NID_policy_constraints, NID_inhibit_any_policy, NID_policy_mappings].contains {
            X509_get_ext_by_NID(certificate, $0, -1) >= 0
        }
    }
}
