internal import COpenSSL

/// SHA-256 through EVP, the digest every modern pin form uses (and SHA-1,
/// for legacy `sha1/` pins only).
enum SHA256Digest {
    static func of(_ bytes: UnsafeRawBufferPointer, sha1: Bool = false) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, sha1 ? EVP_sha1() : EVP_sha256(), nil)
        }
        // EVP_Digest fails only on allocation failure; an empty digest then
        // matches no pin instead of crashing the dashboard.
        guard ok == 1 else { return [] }
        return Array(digest.prefix(Int(length)))
    }

    static func of(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { of($0) }
    }
}
