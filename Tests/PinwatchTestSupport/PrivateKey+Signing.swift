internal import COpenSSL
import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// What a pin-list publisher does with its key: only tests sign lists.
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

/// A WultraSSLPinning-style list, signed in the test.
package enum SignedPinListFixture {
    package struct Entry {
        package var name: String
        /// SHA-256 of the certificate DER.
        package var fingerprint: [UInt8]
        package var expires: Int
        /// Sign something else than what the entry says.
        package var tampered = false

        package init(name: String, fingerprint: [UInt8], expires: Int, tampered: Bool = false) {
            self.name = name
            self.fingerprint = fingerprint
            self.expires = expires
            self.tampered = tampered
        }
    }

    package static func json(_ entries: [Entry], signedBy key: PrivateKey) throws -> String {
        var items: [String] = []
        for entry in entries {
            let fingerprint = Data(entry.fingerprint).base64EncodedString()
            let signedName = entry.tampered ? entry.name + ".evil" : entry.name
            let signature = try key.signSHA256(Array("\(signedName)&\(fingerprint)&\(entry.expires)".utf8))
            items.append(
                "{\"name\":\"\(entry.name)\",\"fingerprint\":\"\(fingerprint)\",\"expires\":\(entry.expires),"
                    + "\"signature\":\"\(Data(signature).base64EncodedString())\"}")
        }
        return "{\"fingerprints\":[" + items.joined(separator: ",") + "]}"
    }
}
