import Foundation
import PinwatchCore
import PinwatchSystem

/// Where a catalogue's files come from: the data built into the binary or
/// a folder of the same layout on disk (`$XDG_DATA_HOME/pinwatch/catalogue`).
struct CatalogueFolder: Sendable {
    /// `built-in` or `user`: the families' `origin`.
    let origin: String
    /// Names the files in problems (`catalogue/letsencrypt/r10.pem`).
    let label: @Sendable (String) -> String
    /// Relative paths of the family descriptions (`letsencrypt/family.yaml`).
    let familyFiles: @Sendable () -> [String]
    let read: @Sendable (String) throws(RegularFile.ReadError) -> String
    /// Whether each signature is checked as the files are read. The
    /// built-in data is checked by the tests before it is built in (and
    /// cannot change after); checking it again at every start would cost
    /// each command a dozen ECDSA P-384 verifications.
    var verifiesSignatures = true
    /// A certificate file's facts known without decoding it: the built-in
    /// data's, embedded beside its PEMs, so no command parses them at start-up.
    var precomputedFacts: (@Sendable (String) -> CertificateFacts?)? = nil

    /// Far more than a family description or a certificate needs; a larger
    /// file in the catalogue is a mistake, reported instead of read.
    static let maximumFileBytes = 256 * 1024
    static let maximumFamilies = 1000

    static let builtIn = CatalogueFolder(
        origin: "built-in",
        label: { "built-in catalogue/\($0)" },
        familyFiles: { BuiltinCatalogueData.files.keys.filter { $0.hasSuffix("/family.yaml") }.sorted() },
        read: { path throws(RegularFile.ReadError) in
            guard let text = BuiltinCatalogueData.files[path] else {
                throw RegularFile.ReadError(path: "built-in catalogue/\(path)", reason: RegularFile.noSuchFile)
            }
            return text + "\n"
        }, verifiesSignatures: false, precomputedFacts: { BuiltinCatalogueData.certificateFacts[$0] })

    /// The built-in data with every signature checked and every certificate
    /// decoded, for the tests.
    static var builtInVerified: CatalogueFolder {
        var folder = builtIn
        folder.verifiesSignatures = true
        folder.precomputedFacts = nil
        return folder
    }

    /// A folder on disk; a missing folder has no families.
    static func disk(_ root: String) -> CatalogueFolder {
        CatalogueFolder(
            origin: "user",
            label: { (root as NSString).appendingPathComponent($0) },
            familyFiles: {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
                // Far more families than exist in public; a larger folder is a mistake.
                return names.sorted().prefix(maximumFamilies).map { "\($0)/family.yaml" }.filter {
                    FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent($0))
                }
            },
            read: { path throws(RegularFile.ReadError) in
                try RegularFile.readText((root as NSString).appendingPathComponent(path), limit: maximumFileBytes)
            })
    }

    /// The built-in files of one family's folder, with another description:
    /// what the fuzz target feeds the family parser.
    static func builtIn(family directory: String, description: String) -> CatalogueFolder {
        CatalogueFolder(
            origin: "user",
            label: { "fuzz/\($0)" },
            familyFiles: { ["\(directory)/family.yaml"] },
            read: { path throws(RegularFile.ReadError) in
                if path == "\(directory)/family.yaml" { return description }
                return try builtIn.read(path)
            })
    }

    var hasProviders: Bool {
        (try? read("providers.yaml")) != nil
    }
}
