import Foundation
import PinwatchCore
import PinwatchProbe

/// `--trust system|PATH` of the commands that dial hosts without a configuration.
enum TrustOption {
    /// The trust store a `--trust` value names; a bundle becomes an
    /// absolute path and is read here first: OpenSSL would block on a
    /// FIFO, and a bundle with no certificate would only fail the probe.
    static func source(_ text: String) throws -> TrustSource {
        guard text != "system" else { return .system }
        let path = URL(fileURLWithPath: text).standardizedFileURL.path
        do {
            _ = try CertificateReader.certificates(inFile: path)
        } catch {
            throw UserFacingError(message: "--trust \(error)")
        }
        return .bundle(path)
    }
}
