/// Keys already decoded, by their SPKI bytes, for one event loop: every
/// SCT of every probe is checked with its log's key, and OpenSSL 3.0
/// builds a key decoder for every decoding (Benchmarks/README.md, "SCT
/// checks per probe"). Only the decoding is kept: the signatures are still
/// checked on every probe. Loop thread only.
package final class VerifyingKeyCache {
    /// Far more keys than a log list has; past it the cache starts over.
    package static let capacity = 256

    /// nil values too: bytes that are no key are not decoded again.
    private var keys: [DERBytes: VerifyingKey?] = [:]

    package init() {}

    package var count: Int { keys.count }

    package func key(subjectPublicKeyInfo spki: [UInt8]) -> VerifyingKey? {
        let bytes = DERBytes(bytes: spki)
        if let known = keys[bytes] { return known }
        let decoded = VerifyingKey(subjectPublicKeyInfo: spki)
        if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
        keys[bytes] = .some(decoded)
        return decoded
    }
}
