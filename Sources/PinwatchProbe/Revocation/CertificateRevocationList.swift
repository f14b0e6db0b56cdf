internal import COpenSSL
import Foundation
import PinwatchCore

/// A CRL whose signature verified with its issuer's key: the only kind
/// whose entries pinwatch believes. One owner of the `X509_CRL`, shared by
/// every host under the same issuer.
///
/// `@unchecked Sendable`: never mutated after `init`; lookups, which may
/// sort the entries on first use, are serialised by a lock.
package final class CertificateRevocationList: @unchecked Sendable {
    package struct Problem: Error, Equatable {
        package var message: String
    }

    package struct Entry: Equatable, Sendable {
        /// RFC 5280's name of the reason code; nil when the entry gives none.
        package var reason: String?
        package var date: Date
    }

    private let pointer: OpaquePointer
    private let lock = NSLock()
    package let thisUpdate: Date
    /// nil when the CRL names no next update (it never goes stale).
    package let nextUpdate: Date?
    package let entryCount: Int

    /// Decodes a DER CRL (or one PEM block) and verifies its signature with
    /// `issuerKey`, a DER SubjectPublicKeyInfo.
    package init(body: [UInt8], issuerKey: [UInt8]) throws(Problem) {
        guard let crl = Self.decode(body) else {
            throw Problem(message: "the body is not a CRL (\(OpenSSLErrorQueue.drain()))")
        }
        let key: OpaquePointer? = issuerKey.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else {
            X509_CRL_free(crl)
            throw Problem(message: "the issuer's key could not be read (\(OpenSSLErrorQueue.drain()))")
        }
        defer { EVP_PKEY_free(key) }
        guard X509_CRL_verify(crl, key) == 1 else {
            _ = OpenSSLErrorQueue.drainCodes()
            X509_CRL_free(crl)
            throw Problem(message: "its signature is not the issuer's")
        }
        pointer = crl
        thisUpdate = ASN1TimeConversion.date(X509_CRL_get0_lastUpdate(crl))
        nextUpdate = X509_CRL_get0_nextUpdate(crl).map { ASN1TimeConversion.date($0) }
        entryCount = X509_CRL_get_REVOKED(crl).map { Int(pinwatch_sk_X509_REVOKED_num($0)) } ?? 0
    }

    deinit {
        X509_CRL_free(pointer)
    }

    /// The entry for a serial's magnitude; nil when the CRL does not list it.
    package func entry(serial: [UInt8]) -> Entry? {
        guard let integer = SerialNumber.integer(serial) else { return nil }
        defer { ASN1_INTEGER_free(integer) }
        lock.lock()
        defer { lock.unlock() }
        var revoked: OpaquePointer?
        // 2 is an entry with removeFromCRL, which takes a hold back.
        guard X509_CRL_get0_by_serial(pointer, &revoked, integer) == 1, let revoked else { return nil }
        let date = ASN1TimeConversion.date(X509_REVOKED_get0_revocationDate(revoked))
        var reason: String?
        if let raw = X509_REVOKED_get_ext_d2i(revoked, NID_crl_reason, nil, nil) {
            let enumerated = raw.assumingMemoryBound(to: ASN1_ENUMERATED.self)
            reason = RevocationFinding.reasonName(code: Int(ASN1_ENUMERATED_get(enumerated)))
            ASN1_ENUMERATED_free(enumerated)
        }
        _ = OpenSSLErrorQueue.drainCodes()
        return Entry(reason: reason, date: date)
    }

    private static func decode(_ body: [UInt8]) -> OpaquePointer? {
        if let der = body.withUnsafeBufferPointer({ buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509_CRL(nil, &cursor, buffer.count)
        }) {
            return der
        }
        guard body.starts(with: Array("-----BEGIN X509 CRL-----".utf8)) else { return nil }
        _ = OpenSSLErrorQueue.drainCodes()
        var bytes = body
        return bytes.withUnsafeMutableBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509_CRL(bio, nil, nil, nil)
        }
    }
}
