internal import COpenSSL
import PinwatchCore

/// Facts of the intermediates and roots already seen, by certificate
/// digest, for one event loop.
///
/// A fleet shares a handful of issuers: without this, every probe would
/// print the same names and hash the same keys again, and every result
/// would hold its own copy of them. Leaves are not cached (each host has
/// its own). Loop thread only.
final class IssuerFactsCache {
    /// Far more issuers than a real fleet has; past it the cache starts over.
    static let capacity = 512

    /// Keyed by the certificate's DER itself: hashing it as bytes is a
    /// fifth of the SHA-256 this cache was first keyed by (two lookups a
    /// host; Benchmarks/README.md, "Figures moved out of code comments"),
    /// and equal keys are equal certificates.
    private var facts: [DERBytes: CertificateFacts] = [:]

    func facts(of certificate: X509Certificate) -> CertificateFacts {
        let key = DERBytes(bytes: certificate.der)
        if let known = facts[key] { return known }
        let computed = certificate.facts
        if facts.count >= Self.capacity { facts.removeAll(keepingCapacity: true) }
        facts[key] = computed
        return computed
    }
}
