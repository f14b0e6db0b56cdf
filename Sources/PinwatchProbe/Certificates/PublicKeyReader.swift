internal import COpenSSL
import Foundation
import PinwatchCore

/// Keys that are not (yet) in a certificate: a certificate request or a
/// bare public key, PEM or DER. Backup pins are made from these before the
/// certificate that will carry the key exists.
package enum PublicKeyReader {
    /// Every key in `bytes`: PEM `PUBLIC KEY` and `CERTIFICATE REQUEST`
    /// blocks, or one DER SubjectPublicKeyInfo or certificate request.
    package static func keys(in bytes: [UInt8]) -> [PublicKeyPins] {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN") {
            return pemBlocks(text).compactMap { label, der in
                switch label {
                case "PUBLIC KEY": return fromSPKI(der)
                case "CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST": return fromRequest(der)
                case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY": return fromPrivateKey(der)
                default: return nil
                }
            }
        }
        if let key = fromSPKI(bytes) { return [key] }
        if let key = fromRequest(bytes) { return [key] }
        return []
    }

    /// `(label, DER)` for each PEM block, in order.
    private static func pemBlocks(_ text: String) -> [(String, [UInt8])] {
        var blocks: [(String, [UInt8])] = []
        var label: String?
        var body = ""
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                label = String(line.dropFirst("-----BEGIN ".count).dropLast(5))
                body = ""
            } else if line.hasPrefix("-----END "), let current = label {
                if let der = Data(base64Encoded: body) { blocks.append((current, Array(der))) }
                label = nil
            } else if label != nil {
                body += line.trimmingCharacters(in: .whitespaces)
            }
        }
        return blocks
    }

    private static func fromSPKI(_ der: [UInt8]) -> PublicKeyPins? {
        der.withUnsafeBufferPointer { buffer -> PublicKeyPins? in
            var cursor = buffer.baseAddress
            guard let publicKey = d2i_X509_PUBKEY(nil, &cursor, buffer.count) else {
                _ = OpenSSLErrorQueue.drainCodes()
                return nil
            }
            defer { X509_PUBKEY_free(publicKey) }
            return pins(publicKey, source: "public key", subject: nil)
        }
    }

    private static func fromRequest(_ der: [UInt8]) -> PublicKeyPins? {
        der.withUnsafeBufferPointer { buffer -> PublicKeyPins? in
            var cursor = buffer.baseAddress
            guard let request = d2i_X509_REQ(nil, &cursor, buffer.count) else {
                _ = OpenSSLErrorQueue.drainCodes()
                return nil
            }
            defer { X509_REQ_free(request) }
            guard let publicKey = X509_REQ_get_X509_PUBKEY(request) else { return nil }
            let subject = X509_REQ_get_subject_name(request).map { X509NameText.oneLine($0) }
            return pins(publicKey, source: "certificate request", subject: subject)
        }
    }

    /// The public half of a private key (PKCS#8 or the traditional RSA and
    /// EC forms): what a backup pin is made from when only the key exists.
    /// Only digests of the public key leave here; the private key's DER is
    /// wiped, and nothing of it is ever printed.
    private static func fromPrivateKey(_ der: [UInt8]) -> PublicKeyPins? {
        var secret = der
        defer { secret.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        return secret.withUnsafeBufferPointer { buffer -> PublicKeyPins? in
            var cursor = buffer.baseAddress
            guard let privateKey = d2i_AutoPrivateKey(nil, &cursor, buffer.count) else {
                _ = OpenSSLErrorQueue.drainCodes()
                return nil
            }
            defer { EVP_PKEY_free(privateKey) }
            var publicKey: OpaquePointer?
            guard X509_PUBKEY_set(&publicKey, privateKey) == 1, let publicKey else {
                _ = OpenSSLErrorQueue.drainCodes()
                return nil
            }
            defer { X509_PUBKEY_free(publicKey) }
            return pins(publicKey, source: "private key (only its public key is used)", subject: nil)
        }
    }

    private static func pins(_ publicKey: OpaquePointer, source: String, subject: String?) -> PublicKeyPins? {
        let key = X509_PUBKEY_get0(publicKey)
        let spki = PublicKeyFacts.spkiDigest(ofPublicKey: publicKey)
        guard spki.count == 32 else { return nil }
        return PublicKeyPins(
            source: source, subject: subject, keyDescription: PublicKeyFacts.description(of: key), spkiSHA256: spki,
            keySHA256: PublicKeyFacts.rawKeyDigest(ofPublicKey: publicKey, key: key))
    }
}
