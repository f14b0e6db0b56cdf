import Foundation

/// Certificate files parsed once per content. A configuration's trust
/// bundle is parsed when the configuration is checked and again when the
/// probes' TLS context loads it; in OpenSSL 3, decoding each certificate's
/// key costs far more than reading the file (Benchmarks/README.md, "Figures
/// moved out of code comments"). Each lookup
/// reads the file again and compares the SHA-256 of its bytes, so an edited
/// file is parsed afresh.
///
/// `@unchecked Sendable`: the entries are only touched under the lock, and
/// `X509Certificate` is immutable.
final class CertificateFileCache: @unchecked Sendable {
    static let shared = CertificateFileCache()
    /// More than a configuration's trust and `file:` pin files. Past it the
    /// path parsed longest ago makes room: a long-running process whose
    /// configurations named other files over time keeps caching the ones
    /// it reads now, instead of being full for good of files it no longer
    /// reads.
    static let capacity = 32

    private struct Entry {
        var contentDigest: [UInt8]
        var certificates: [X509Certificate]
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    /// The cached paths, the one parsed longest ago first.
    private var order: [String] = []

    func certificates(inFile path: String) throws -> [X509Certificate] {
        let bytes = try CertificateReader.contents(of: path)
        let digest = SHA256Digest.of(bytes)
        if let cached = cached(path, digest) { return cached }
        let certificates = try CertificateReader.certificates(in: bytes, source: path)
        lock.lock()
        defer { lock.unlock() }
        if entries[path] == nil {
            if entries.count >= Self.capacity, !order.isEmpty { entries[order.removeFirst()] = nil }
            order.append(path)
        }
        entries[path] = Entry(contentDigest: digest, certificates: certificates)
        return certificates
    }

    private func cached(_ path: String, _ digest: [UInt8]) -> [X509Certificate]? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[path], entry.contentDigest == digest else { return nil }
        return entry.certificates
    }
}
