import Foundation
import PinwatchCore

/// `providers.yaml`: hosting providers and certificate services that pick
/// among CA families, each with the families it draws from.
enum ProvidersLoader {
    static let providerKeys: Set<String> = ["name", "display_name", "families", "exclusive", "source"]

    static func load(
        _ text: String, label: String, families: [CatalogueFamily], problems: inout [ConfigProblem]
    ) -> [CatalogueProvider] {
        var yaml = CatalogueYAML(file: label)
        defer { problems += yaml.problems }
        guard let root = yaml.document(text), let top = yaml.mapping(root, key: "", allowed: ["providers"]) else { return [] }
        var providers: [CatalogueProvider] = []
        for (index, node) in yaml.list(top["providers"], key: "providers").enumerated() {
            let key = "providers[\(index)]"
            guard let values = yaml.mapping(node, key: key, allowed: providerKeys),
                let name = yaml.required(values, "name", key: key, in: node),
                let source = yaml.required(values, "source", key: key, in: node)
            else { continue }
            var names: [String] = []
            for (position, familyNode) in yaml.list(values["families"], key: "\(key).families").enumerated() {
                guard let family = yaml.string(familyNode, key: "\(key).families[\(position)]") else { continue }
                guard families.contains(where: { $0.name == family }) else {
                    yaml.report(
                        familyNode, key: "\(key).families[\(position)]", "no family named \(EchoedInput.quoted(family)) in the catalogue")
                    continue
                }
                names.append(family)
            }
            // `exclusive`: `family/file` of certificates only this provider's customers get.
            var exclusiveKeys: [[UInt8]] = []
            for (position, fileNode) in yaml.list(values["exclusive"], key: "\(key).exclusive").enumerated() {
                guard let reference = yaml.string(fileNode, key: "\(key).exclusive[\(position)]") else { continue }
                let certificate = families.lazy.flatMap(\.allCertificates).first { $0.file.hasSuffix("/" + reference) }
                guard let certificate else {
                    yaml.report(fileNode, key: "\(key).exclusive[\(position)]", "no catalogue file \(EchoedInput.quoted(reference))")
                    continue
                }
                exclusiveKeys.append(certificate.facts.spkiSHA256)
            }
            let displayName = values["display_name"].flatMap { yaml.string($0, key: "\(key).display_name") } ?? name
            providers.append(
                CatalogueProvider(name: name, displayName: displayName, families: names, exclusiveKeys: exclusiveKeys, source: source))
        }
        return providers
    }
}
