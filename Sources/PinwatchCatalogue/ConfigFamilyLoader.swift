import Foundation
import PinwatchCore
import PinwatchSystem

/// A family from the configuration's `catalogue:` key: its roots are taken
/// as declared (a private PKI's anchors), and every intermediate of the
/// pool must be signed by one of them.
enum ConfigFamilyLoader {
    static func load(_ source: CatalogueSource, problems: inout [ConfigProblem]) -> CatalogueFamily? {
        let before = problems.count
        func report(_ file: CatalogueSource.File, _ message: String) {
            problems.append(ConfigProblem(file: source.configFile, line: file.line, key: file.key, message: message))
        }
        func read(_ file: CatalogueSource.File) -> [CatalogueCertificateFile] {
            do {
                let text = try RegularFile.readText(file.path, limit: CatalogueFolder.maximumFileBytes)
                return try CatalogueCertificateFile.read(text, label: file.path)
            } catch let error as RegularFile.ReadError {
                report(file, error.description)
            } catch {
                report(file, "\(file.path): not a certificate (\(error))")
            }
            return []
        }
        let roots = source.roots.flatMap(read)
        var pool: [CatalogueIntermediate] = []
        for file in source.intermediates {
            for intermediate in read(file) {
                guard let root = roots.first(where: { intermediate.isSigned(by: $0) }) else {
                    let names = roots.map(\.entry.name).joined(separator: ", ")
                    report(
                        file,
                        "\(file.path) (\(intermediate.entry.name)) does not chain to the family's root (\(names)): its signature does not verify"
                    )
                    continue
                }
                pool.append(CatalogueIntermediate(certificate: intermediate.entry, state: .active, root: root.entry.name))
            }
        }
        guard problems.count == before else { return nil }
        return CatalogueFamily(
            name: source.name, displayName: source.name, roots: roots.map(\.entry), intermediates: pool, origin: "config")
    }
}
