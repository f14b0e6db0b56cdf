internal import COpenSSL

/// SHA-256 through EVP, the digest every modern pin form uses (and SHA-1,
/// for legacy `sha1/` pins only).
package enum SHA256Digest {
    /// Fetched once: with `EVP_sha256()` OpenSSL 3 looks the implementation
    /// up in its provider store at every digest (a lock and dozens of name
    /// comparisons), most of what digesting a certificate costs; a probe
    /// makes a dozen digests. Never freed: they live as long as the process.
    nonisolated(unsafe) private static let fetchedSHA256 = EVP_MD_fetch(nil, "SHA256", nil)
    nonisolated(unsafe) private static let fetchedSHA1 = EVP_MD_fetch(nil, "SHA1", nil)

    package static func of(_ bytes: UnsafeRawBufferPointer, sha1: Bool = false) -> [UInt8] {
        // A provider configuration without the algorithm leaves the fetch
        // nil; the legacy accessor then reports the same failure per call.
        let algorithm = sha1 ? (fetchedSHA1 ?? EVP_sha1()) : (fetchedSHA256 ?? EVP_sha256())
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, algorithm, nil)
        }
        // EVP_Digest fails only on allocation failure; an empty digest then
        // matches no pin instead of crashing the dashboard.
        guard ok == 1 else { return [] }
        return Array(digest.prefix(Int(length)))
    }

    package static func of(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { of($0) }
    }
}
