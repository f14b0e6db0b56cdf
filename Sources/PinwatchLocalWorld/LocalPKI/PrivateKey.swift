internal import COpenSSL
import Foundation
import PinwatchProbe

/// The one owner of an OpenSSL `EVP_PKEY` holding a private key.
///
/// Generated in process so that tests and `pinwatch demo` never write key
/// files. `@unchecked Sendable` because the key is never mutated after
/// `init` and OpenSSL's signing and encoding functions only read it.
package final class PrivateKey: @unchecked Sendable {
    /// The NIST curves that public CAs and pinned servers use.
    package enum Curve: String, Sendable, CaseIterable {
        case p256 = "P-256"
        case p384 = "P-384"
    }

    package let pointer: OpaquePointer

    /// Takes over a reference the caller owns.
    package init(takingOwnership pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// A fresh ECDSA key: fast enough to make dozens at demo start-up.
    package static func ecdsa(_ curve: Curve) throws -> PrivateKey {
        guard let key = pinwatch_EVP_EC_gen(curve.rawValue) else {
            throw LocalPKIError.keyGeneration("\(curve.rawValue): \(OpenSSLErrorQueue.drain())")
        }
        return PrivateKey(takingOwnership: key)
    }

    /// A fresh RSA key; slow (hundreds of milliseconds at 2048 bits), so
    /// the demo prefers EC keys.
    package static func rsa(bits: Int) throws -> PrivateKey {
        guard bits >= 1024, bits <= 16384, let key = pinwatch_EVP_RSA_gen(UInt32(bits)) else {
            throw LocalPKIError.keyGeneration("RSA \(bits) bits: \(OpenSSLErrorQueue.drain())")
        }
        return PrivateKey(takingOwnership: key)
    }

    /// The DER SubjectPublicKeyInfo of the public half: what `sha256/` pins
    /// hash, so tests and the demo can write pins before any server starts.
    package var subjectPublicKeyInfoDER: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(pointer, &out)
        guard length > 0, let out else { return [] }
        defer { pinwatch_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// RSA leaves also get keyEncipherment, which TLS 1.2 RSA key transport
    /// clients check; EC leaves must not claim it.
    var isRSA: Bool {
        EVP_PKEY_get_base_id(pointer) == EVP_PKEY_RSA
    }
}
