internal import COpenSSL
import Foundation
import PinwatchCore

/// One client `SSL_CTX` per trust source, built once and shared by every
/// probe of every cycle: loading the system store costs far more than a
/// handshake.
///
/// `@unchecked Sendable`: the context is configured in `init` and only read
/// afterwards (`SSL_new`), which OpenSSL allows from any thread.
final class TLSContext: @unchecked Sendable {
    /// Large enough for real chains, small enough that a hostile server
    /// cannot make a probe buffer megabytes.
    static let maximumCertificateListBytes = 256 * 1024
    /// How deep the verifier builds; deeper chains are refused anyway.
    static let maximumVerifyDepth: Int32 = 32

    let pointer: OpaquePointer
    /// Verified chains of this context's trust store (see `VerifiedChainCache`).
    let verifiedChains: VerifiedChainCache
    /// Said with every untrusted verdict of this context: the system store
    /// it loaded holds no certificate (`SystemTrustStore`).
    let untrustedNote: String?

    init(trust: TrustSource, now: @escaping @Sendable () -> Date = { Date() }) throws {
        verifiedChains = VerifiedChainCache(now: now)
        let context = try Self.makeClientContext(verifiedChains: verifiedChains)
        pointer = context
        untrustedNote = trust == .system ? SystemTrustStore.emptyStoreNote() : nil
        switch trust {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw ProbeFailure(kind: .tls, message: "cannot load the system trust store: \(OpenSSLErrorQueue.drain())")
            }
        case .bundle(let path):
            // The roots the configuration check parsed (CertificateFileCache),
            // not a second parse of the file by SSL_CTX_load_verify_locations.
            let roots: [X509Certificate]
            do {
                roots = try CertificateReader.certificates(inFile: path)
            } catch {
                throw ProbeFailure(kind: .tls, message: "cannot load trust bundle \(error)")
            }
            try Self.add(roots, to: context)
        case .pem(let text):
            let roots: [X509Certificate]
            do {
                roots = try X509Certificate.certificates(pem: text)
            } catch {
                throw ProbeFailure(kind: .tls, message: "cannot read the in-memory trust roots: \(error)")
            }
            try Self.add(roots, to: context)
        }
        _ = OpenSSLErrorQueue.drainCodes()
    }

    /// A context offering only `offer`'s signature family, verifying against
    /// `base`'s trust store with `base`'s verified chains: the store is
    /// shared, not loaded again, and a chain verified by one offer's probe
    /// is a hit for the other's.
    init(offering offer: KeyTypeOffer, sharingTrustOf base: TLSContext) throws {
        verifiedChains = base.verifiedChains
        untrustedNote = base.untrustedNote
        let context = try Self.makeClientContext(verifiedChains: verifiedChains)
        pointer = context
        // Up-references the store, so it lives as long as either context.
        SSL_CTX_set1_cert_store(context, SSL_CTX_get_cert_store(base.pointer))
        guard pinwatch_SSL_CTX_set1_sigalgs_list(context, offer.signatureAlgorithms) == 1,
            SSL_CTX_set_cipher_list(context, offer.tls12CipherList) == 1
        else {
            throw ProbeFailure(
                kind: .tls, message: "cannot limit a TLS context to \(offer.signatureFamily) keys: \(OpenSSLErrorQueue.drain())")
        }
        _ = OpenSSLErrorQueue.drainCodes()
    }

    /// The client settings every context shares; the caller adds the trust.
    private static func makeClientContext(verifiedChains: VerifiedChainCache) throws -> OpaquePointer {
        guard let method = TLS_client_method(), let context = SSL_CTX_new(method) else {
            throw ProbeFailure(kind: .tls, message: "cannot create a TLS context: \(OpenSSLErrorQueue.drain())")
        }
        _ = pinwatch_SSL_CTX_set_session_cache_mode(context, Int(SSL_SESS_CACHE_OFF))
        _ = pinwatch_SSL_CTX_set_max_cert_list(context, Int(Self.maximumCertificateListBytes))
        // A probe spends most of its life waiting for the next flight; its
        // 16 KB+ record buffers are given back meanwhile, which is what keeps
        // a thousand probes in flight within the memory budget.
        _ = pinwatch_SSL_CTX_set_mode(context, Int(SSL_MODE_RELEASE_BUFFERS))
        // Returning 1 keeps the handshake going on any verification error,
        // so an untrusted or mismatching chain is still collected; the
        // verdict is read afterwards from SSL_get_verify_result.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, { _, _ in 1 })
        SSL_CTX_set_verify_depth(context, Self.maximumVerifyDepth)
        // The cache outlives the context: both are this object's, freed together.
        SSL_CTX_set_cert_verify_callback(
            context,
            { storeContext, cache in
                guard let storeContext, let cache else { return 0 }
                return Unmanaged<VerifiedChainCache>.fromOpaque(cache).takeUnretainedValue().verify(storeContext)
            }, Unmanaged.passUnretained(verifiedChains).toOpaque())
        return context
    }

    private static func add(_ roots: [X509Certificate], to context: OpaquePointer) throws {
        guard let store = SSL_CTX_get_cert_store(context) else {
            throw ProbeFailure(kind: .tls, message: "TLS context has no certificate store")
        }
        for root in roots {
            // A root listed twice is harmless; the error is cleared.
            if root.withPointer({ X509_STORE_add_cert(store, $0) }) != 1 {
                _ = OpenSSLErrorQueue.drainCodes()
            }
        }
    }

    deinit {
        SSL_CTX_free(pointer)
    }
}

/// The engine's contexts by trust source and key type offer. Failures are
/// not cached, so a trust bundle fixed on disk is picked up by the next cycle.
final class TLSContextCache: @unchecked Sendable {
    private struct Key: Hashable {
        var trust: TrustSource
        var offer: KeyTypeOffer?
    }

    private let lock = NSLock()
    private var contexts: [Key: TLSContext] = [:]
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// Chains served from the verified-chain caches, verified up to an
    /// intermediate verified before, and verified in full.
    var verifiedChainCounts: (hits: Int, anchored: Int, misses: Int) {
        lock.lock()
        defer { lock.unlock() }
        var total = (hits: 0, anchored: 0, misses: 0)
        // An offer's context shares its trust source's cache: counted once.
        for (key, context) in contexts where key.offer == nil {
            let counts = context.verifiedChains.counts
            total.hits += counts.hits
            total.anchored += counts.anchored
            total.misses += counts.misses
        }
        return total
    }

    func context(for trust: TrustSource, offering offer: KeyTypeOffer? = nil) throws -> TLSContext {
        lock.lock()
        defer { lock.unlock() }
        if let cached = contexts[Key(trust: trust, offer: offer)] { return cached }
        let base: TLSContext
        if let cached = contexts[Key(trust: trust, offer: nil)] {
            base = cached
        } else {
            base = try TLSContext(trust: trust, now: now)
            contexts[Key(trust: trust, offer: nil)] = base
        }
        guard let offer else { return base }
        let created = try TLSContext(offering: offer, sharingTrustOf: base)
        contexts[Key(trust: trust, offer: offer)] = created
        return created
    }
}
