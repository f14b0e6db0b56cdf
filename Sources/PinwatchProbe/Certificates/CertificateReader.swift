import Foundation
import PinwatchCore

/// Reads the certificate files users point pinwatch at (`file:` pins,
/// `pinwatch pin`): a PEM bundle of any length or a single DER certificate.
public enum CertificateReader {
    /// Large enough for any real CA bundle, small enough that a wrong path
    /// (a disk image, /dev/zero) fails fast instead of filling memory.
    public static let maximumFileSize = 10 * 1024 * 1024

    public static func certificates(inFile path: String) throws -> [X509Certificate] {
        let bytes = try contents(of: path)
        if bytes.isEmpty {
            throw CertificateError.unreadable(path: path, reason: "file is empty")
        }
        let pemMarker = Array("-----BEGIN".utf8)
        let looksLikePEM =
            bytes.count >= pemMarker.count
            && (0...(bytes.count - pemMarker.count)).contains { bytes[$0..<($0 + pemMarker.count)].elementsEqual(pemMarker) }
        if looksLikePEM {
            let certificates: [X509Certificate]
            do {
                certificates = try X509Certificate.certificates(pem: String(decoding: bytes, as: UTF8.self))
            } catch {
                throw CertificateError.unreadable(path: path, reason: "\(error)")
            }
            guard !certificates.isEmpty else {
                throw CertificateError.unreadable(path: path, reason: "no CERTIFICATE block in the PEM file")
            }
            return certificates
        }
        do {
            return [try X509Certificate(der: bytes)]
        } catch {
            throw CertificateError.unreadable(path: path, reason: "neither PEM nor a DER certificate")
        }
    }

    /// SHA-256 of each certificate's DER, in file order: the config's `file:` pins.
    public static func certificateDigests(inFile path: String) throws -> [[UInt8]] {
        try certificates(inFile: path).map { SHA256Digest.of($0.der) }
    }

    private static func contents(of path: String) throws -> [UInt8] {
        do {
            return try RegularFile.read(path, limit: maximumFileSize)
        } catch {
            throw CertificateError.unreadable(path: path, reason: error.reason)
        }
    }
}
