internal import COpenSSL
import Foundation
import PinwatchProbe

/// What a signer does with its key: a pin-list publisher in the tests, the
/// local Certificate Transparency log for its tree heads.
extension PrivateKey {
    /// ECDSA (or RSA) over SHA-256; the signature in DER.
    package func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw LocalPKIError.keyEncoding("no digest context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw LocalPKIError.keyEncoding(OpenSSLErrorQueue.drain())
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw LocalPKIError.keyEncoding(OpenSSLErrorQueue.drain())
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw LocalPKIError.keyEncoding(OpenSSLErrorQueue.drain())
        }
        return Array(signature.prefix(length))
    }

    /// The uncompressed point of a P-256 key (0x04, X, Y): how apps carry
    /// a list-signing key. It ends the DER SubjectPublicKeyInfo.
    package var uncompressedPoint: [UInt8] { Array(subjectPublicKeyInfoDER.suffix(65)) }
}
