import Foundation
import PinwatchCore
import PinwatchSystem

/// A client release's `trust_store:`: a PEM bundle, or a folder with one
/// certificate a file (an OpenSSL hash directory, as Android ships its
/// store in `system/ca-certificates/files/`). Every file is bounded and
/// parsed by OpenSSL; a folder's entries that are not certificates are
/// problems, not silently skipped roots.
package enum TrustStoreFiles {
    /// Android's store has about 150; a folder of far more is not a store.
    static let maximumEntries = 2_000

    package static func read(_ path: String) throws -> [CertificateFacts] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw RegularFile.ReadError(path: path, reason: RegularFile.noSuchFile)
        }
        guard isDirectory.boolValue else { return try CertificateReader.certificates(inFile: path).map(\.facts) }
        var facts: [CertificateFacts] = []
        for name in try RegularFile.listDirectory(path, limit: maximumEntries).sorted() where !name.hasPrefix(".") {
            facts += try CertificateReader.certificates(inFile: (path as NSString).appendingPathComponent(name)).map(\.facts)
        }
        return facts
    }
}
