import Foundation
import Yams

/// `catalogue:`: a user's CA families (a private PKI's roots and issuing pool).
extension ConfigDocumentParser {
    static let catalogueEntryKeys: Set<String> = ["name", "roots", "intermediates"]

    mutating func catalogueSources(_ node: Node) -> [CatalogueSource] {
        guard let items = list(node, key: "catalogue") else { return [] }
        var sources: [CatalogueSource] = []
        var seen: [String: Int] = [:]
        for (index, item) in items.enumerated() {
            let key = "catalogue[\(index)]"
            guard let pairs = mapping(item, key: key) else { continue }
            var values: [String: Node] = [:]
            for pair in pairs {
                if Self.catalogueEntryKeys.contains(pair.key) {
                    values[pair.key] = pair.value
                } else {
                    report(
                        pair.keyNode, key: "\(key).\(pair.key)",
                        "unknown key (expected name, roots, intermediates)" + DidYouMean.hint(pair.key, among: Self.catalogueEntryKeys))
                }
            }
            guard let nameNode = values["name"] else {
                report(item, key: key, "needs a name")
                continue
            }
            guard let name = string(nameNode, key: "\(key).name") else { continue }
            if let first = seen[name] {
                report(nameNode, key: "\(key).name", "duplicate family name \(EchoedInput.quoted(name)) (first on line \(first))")
                continue
            }
            seen[name] = line(of: nameNode)
            let roots = catalogueFiles(values["roots"], key: "\(key).roots")
            let intermediates = catalogueFiles(values["intermediates"], key: "\(key).intermediates")
            if values["roots"] == nil || roots.isEmpty {
                report(item, key: key, "family \(EchoedInput.quoted(name)) needs at least one root file")
                continue
            }
            sources.append(
                CatalogueSource(
                    name: name, roots: roots, intermediates: intermediates, configFile: file, line: line(of: item), key: key))
        }
        return sources
    }

    private mutating func catalogueFiles(_ node: Node?, key: String) -> [CatalogueSource.File] {
        guard let node, let items = list(node, key: key) else { return [] }
        var files: [CatalogueSource.File] = []
        for (index, item) in items.enumerated() {
            let itemKey = "\(key)[\(index)]"
            guard let path = string(item, key: itemKey) else { continue }
            files.append(CatalogueSource.File(path: resolve(path), line: line(of: item), key: itemKey))
        }
        return files
    }
}
