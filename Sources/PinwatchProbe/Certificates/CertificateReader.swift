import Foundation
import PinwatchCore
import PinwatchSystem

/// Reads the certificate files users point pinwatch at (`file:` pins,
/// `pinwatch pin`): a PEM bundle of any length or a single DER certificate.
package enum CertificateReader {
    /// Large enough for any real CA bundle, small enough that a wrong path
    /// (a disk image, /dev/zero) fails fast instead of filling memory.
    package static let maximumFileSize = 10 * 1024 * 1024

    package static func certificates(inFile path: String) throws -> [X509Certificate] {
        try CertificateFileCache.shared.certificates(inFile: path)
    }

    /// The same for bytes already read (`pin -` reads standard input);
    /// `source` names them in errors.
    package static func certificates(in bytes: [UInt8], source path: String) throws -> [X509Certificate] {
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

    /// A file's bytes, or standard input's for `-`, bounded like a file.
    package static func read(_ path: String) throws -> [UInt8] {
        guard path == "-" else { return try contents(of: path) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = Glibc.read(STDIN_FILENO, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer.prefix(count)
            if bytes.count > maximumFileSize {
                throw CertificateError.unreadable(path: "standard input", reason: "more than \(maximumFileSize / 1024 / 1024) MiB")
            }
        }
        return bytes
    }

    /// SHA-256 of each certificate's DER, in file order: the config's `file:` pins.
    package static func certificateDigests(inFile path: String) throws -> [[UInt8]] {
        try certificates(inFile: path).map { SHA256Digest.of($0.der) }
    }

    static func contents(of path: String) throws -> [UInt8] {
        do {
            return try RegularFile.read(path, limit: maximumFileSize)
        } catch {
            throw CertificateError.unreadable(path: path, reason: error.reason)
        }
    }
}
