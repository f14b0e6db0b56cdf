internal import COpenSSL
import PinwatchCore

/// The levels of a verified chain whose revocation a CRL can tell: each
/// with a crlDistributionPoints URI over HTTP and its issuer next in the
/// chain, whose key the CRL must be signed by.
package enum RevocationSubjects {
    /// More URIs than any CA publishes for one certificate; the rest are ignored.
    static let maximumURLsPerLevel = 4
    /// A longer URI is not fetched.
    static let maximumURLLength = 2_048

    package static func subjects(of chain: [X509Certificate]) -> [RevocationSubject] {
        guard chain.count > 1 else { return [] }
        var subjects: [RevocationSubject] = []
        for level in 0..<(chain.count - 1) {
            let found: RevocationSubject? = chain[level].withPointer { certificate in
                let urls = crlURLs(of: certificate)
                guard !urls.isEmpty, let serial = serial(of: certificate) else { return nil }
                return chain[level + 1].withPointer { issuer in
                    guard let key = PublicKeyDER.of(issuer) else { return nil }
                    return RevocationSubject(
                        level: level, serial: serial, crlURLs: urls, issuerKey: key, issuerKeySHA256: SHA256Digest.of(key))
                }
            }
            if let found { subjects.append(found) }
        }
        return subjects
    }

    /// The `http://` full names of the distribution points, printable
    /// ASCII only: anything else is never dialled.
    static func crlURLs(of certificate: OpaquePointer) -> [String] {
        guard let raw = X509_get_ext_d2i(certificate, NID_crl_distribution_points, nil, nil) else {
            _ = OpenSSLErrorQueue.drainCodes()
            return []
        }
        let points = OpaquePointer(raw)
        defer { CRL_DIST_POINTS_free(points) }
        var urls: [String] = []
        for index in 0..<pinwatch_sk_DIST_POINT_num(points) {
            guard let point = pinwatch_sk_DIST_POINT_value(points, index), let name = point.pointee.distpoint,
                name.pointee.type == 0, let names = name.pointee.name.fullname
            else { continue }
            for entry in 0..<pinwatch_sk_GENERAL_NAME_num(names) {
                guard let general = pinwatch_sk_GENERAL_NAME_value(names, entry), general.pointee.type == GEN_URI,
                    let string = general.pointee.d.uniformResourceIdentifier, let data = ASN1_STRING_get0_data(string)
                else { continue }
                let bytes = UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string)))
                guard bytes.count <= maximumURLLength, bytes.allSatisfy({ (0x21...0x7e).contains($0) }) else { continue }
                let text = String(decoding: bytes, as: UTF8.self)
                guard text.lowercased().hasPrefix("http://"), !urls.contains(text), urls.count < maximumURLsPerLevel else {
                    continue
                }
                urls.append(text)
            }
        }
        return urls
    }

    /// The serial's magnitude, big-endian: how a CRL entry is matched.
    static func serial(of certificate: OpaquePointer) -> [UInt8]? {
        guard let integer = X509_get0_serialNumber(certificate) else { return nil }
        return SerialNumber.bytes(of: integer)
    }
}

enum SerialNumber {
    static func bytes(of integer: UnsafePointer<ASN1_INTEGER>) -> [UInt8]? {
        guard let number = ASN1_INTEGER_to_BN(integer, nil) else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(number) + 7) / 8))
        let written = bytes.withUnsafeMutableBufferPointer { BN_bn2bin(number, $0.baseAddress) }
        return Array(bytes.prefix(Int(written)))
    }

    /// An ASN1_INTEGER for a magnitude; the caller frees it.
    static func integer(_ bytes: [UInt8]) -> UnsafeMutablePointer<ASN1_INTEGER>? {
        guard let number = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else { return nil }
        defer { BN_free(number) }
        return BN_to_ASN1_INTEGER(number, nil)
    }
}

/// A certificate's DER SubjectPublicKeyInfo, as the certificate carries it.
enum PublicKeyDER {
    /// The certificate's own SPKI re-serialised (`i2d_X509_PUBKEY`), not
    /// the decoded key encoded again (`i2d_PUBKEY`): the same bytes for
    /// the CRL's signature check, without OpenSSL 3.0 building a key
    /// encoder for every call (Benchmarks/README.md, "The probe's own work
    /// beside the handshake").
    static func of(_ certificate: OpaquePointer) -> [UInt8]? {
        guard let publicKey = X509_get_X509_PUBKEY(certificate) else { return nil }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509_PUBKEY(publicKey, &out)
        guard length > 0, let out else {
            _ = OpenSSLErrorQueue.drainCodes()
            return nil
        }
        defer { pinwatch_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
