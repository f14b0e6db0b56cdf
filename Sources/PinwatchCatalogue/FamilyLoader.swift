import Foundation
import PinwatchCore
import Yams

/// Reads one family description (`family.yaml`) and the certificate files
/// beside it into a `CatalogueFamily`. Nothing is trusted until it
/// verifies: an intermediate must be signed by the root it names, a
/// cross-sign by the root it names, a root by itself.
struct FamilyLoader {
    private let folder: CatalogueFolder
    /// The family's folder relative to the catalogue (`letsencrypt`).
    private let directory: String
    private var yaml: CatalogueYAML
    /// Files already read, by name in the family's folder.
    private var files: [String: CatalogueCertificateFile] = [:]

    static let familyKeys: Set<String> = [
        "name", "display_name", "retrieved", "roots", "cross_signs", "intermediates", "transitions", "lifetimes",
    ]
    static let certificateKeys: Set<String> = [
        "file", "published", "retrieved_from", "in_system_store", "reason", "state", "root", "signed_by", "served_with",
        "states", "source",
    ]
    static let periodKeys: Set<String> = ["state", "from", "until", "source"]
    static let transitionKeys: Set<String> = ["name", "effective", "source", "roots", "intermediates"]
    static let lifetimeKeys: Set<String> = ["from", "days", "source"]

    init(folder: CatalogueFolder, descriptionPath: String) {
        self.folder = folder
        self.directory = (descriptionPath as NSString).deletingLastPathComponent
        self.yaml = CatalogueYAML(file: folder.label(descriptionPath))
    }

    var problems: [ConfigProblem] { yaml.problems }

    mutating func load(text: String) -> CatalogueFamily? {
        guard let root = yaml.document(text), let values = yaml.mapping(root, key: "", allowed: Self.familyKeys) else {
            if yaml.problems.isEmpty { yaml.report(nil, key: "", "the family description is empty") }
            return nil
        }
        let name = yaml.required(values, "name", key: "", in: root)
        let displayName = values["display_name"].flatMap { yaml.string($0, key: "display_name") }
        let retrieved = yaml.date(values["retrieved"], key: "retrieved")
        let roots = certificates(values["roots"], key: "roots", role: .root)
        let crossSigns = certificates(values["cross_signs"], key: "cross_signs", role: .crossSign)
        let intermediates = pool(values["intermediates"], key: "intermediates")
        var transitions: [CatalogueTransition] = []
        for (index, node) in yaml.list(values["transitions"], key: "transitions").enumerated() {
            if let transition = transition(node, key: "transitions[\(index)]") { transitions.append(transition) }
        }
        var lifetimes: [LifetimeStep] = []
        for (index, node) in yaml.list(values["lifetimes"], key: "lifetimes").enumerated() {
            if let step = lifetime(node, key: "lifetimes[\(index)]") { lifetimes.append(step) }
        }
        // A family without a root anchors nothing: no pin could be recommended.
        if roots.isEmpty, yaml.problems.isEmpty {
            let missing = values["roots"] == nil
            yaml.report(
                values["roots"] ?? root, key: "roots",
                missing ? "a family needs at least one root (roots: is missing)" : "a family needs at least one root")
        }
        guard let name, yaml.problems.isEmpty else { return nil }
        return CatalogueFamily(
            name: name, displayName: displayName ?? name, roots: roots, crossSigns: crossSigns, intermediates: intermediates,
            transitions: transitions, lifetimes: lifetimes, retrieved: retrieved, origin: folder.origin)
    }

    private enum Role {
        case root, crossSign, intermediate
    }

    private mutating func certificates(_ node: Node?, key: String, role: Role) -> [CatalogueCertificate] {
        yaml.list(node, key: key).enumerated().compactMap { index, item in
            certificate(item, key: "\(key)[\(index)]", role: role)?.certificate
        }
    }

    private mutating func pool(_ node: Node?, key: String) -> [CatalogueIntermediate] {
        yaml.list(node, key: key).enumerated().compactMap { index, item in
            guard let read = certificate(item, key: "\(key)[\(index)]", role: .intermediate), let values = read.values else {
                return nil
            }
            let itemKey = "\(key)[\(index)]"
            guard let stateText = yaml.required(values, "state", key: itemKey, in: item) else { return nil }
            guard let state = CatalogueIntermediate.State(rawValue: stateText) else {
                yaml.report(
                    values["state"], key: "\(itemKey).state", "expected active, standby or retired, found \(EchoedInput.quoted(stateText))")
                return nil
            }
            guard let rootName = read.issuerName else { return nil }
            var periods: [CatalogueIntermediate.Period] = []
            for (position, periodNode) in yaml.list(values["states"], key: "\(itemKey).states").enumerated() {
                if let period = period(periodNode, key: "\(itemKey).states[\(position)]") { periods.append(period) }
            }
            var servedWith: [CatalogueCertificate] = []
            for (position, fileNode) in yaml.list(values["served_with"], key: "\(itemKey).served_with").enumerated() {
                let fileKey = "\(itemKey).served_with[\(position)]"
                guard let file = yaml.string(fileNode, key: fileKey) else { continue }
                guard let known = files[file] else {
                    yaml.report(fileNode, key: fileKey, "\(EchoedInput.quoted(file)) is not a cross-sign or root listed before it")
                    continue
                }
                servedWith.append(known.entry)
            }
            return CatalogueIntermediate(
                certificate: read.certificate, state: state, root: rootName, periods: periods, servedWith: servedWith)
        }
    }

    /// Reads, parses and verifies one entry: the file must hold exactly one
    /// certificate, signed by the file `root:`/`signed_by:` names (itself
    /// for a root that names none).
    private mutating func certificate(_ node: Node, key: String, role: Role) -> (
        certificate: CatalogueCertificate, values: [String: Node]?, issuerName: String?
    )? {
        guard let values = yaml.mapping(node, key: key, allowed: Self.certificateKeys),
            let file = yaml.required(values, "file", key: key, in: node)
        else { return nil }
        let inSystemStore = values["in_system_store"].flatMap { yaml.boolean($0, key: "\(key).in_system_store") }
        let published = values["published"].flatMap { yaml.string($0, key: "\(key).published") }
        guard var read = readFile(file, node: values["file"], key: "\(key).file") else { return nil }
        read.entry.published = published
        // A built-in root is in the store unless its description says
        // otherwise (the tests hold the data to it); a user's says nothing.
        read.entry.inSystemStore = inSystemStore ?? (role == .root && folder.origin == "built-in" ? true : nil)
        let issuerKey = role == .intermediate ? "root" : "signed_by"
        if role != .root, values[issuerKey] == nil {
            yaml.report(node, key: key, "needs \(issuerKey): the file of the root that signed \(file)")
            return nil
        }
        var issuer = read
        if let issuerFile = values[issuerKey].flatMap({ yaml.string($0, key: "\(key).\(issuerKey)") }) {
            guard let found = files[issuerFile] else {
                yaml.report(
                    values[issuerKey], key: "\(key).\(issuerKey)", "\(EchoedInput.quoted(issuerFile)) is not a root listed before it")
                return nil
            }
            issuer = found
        }
        guard !folder.verifiesSignatures || read.isSigned(by: issuer) else {
            let what = issuer.entry.file == read.entry.file ? "is not self-signed" : "is not signed by \(issuer.entry.name)"
            yaml.report(values["file"], key: "\(key).file", "\(file) (\(read.entry.name)) \(what): its signature does not verify")
            return nil
        }
        return (read.entry, values, issuer.entry.name)
    }

    private mutating func readFile(_ file: String, node: Node?, key: String) -> CatalogueCertificateFile? {
        if let known = files[file] { return known }
        guard !file.contains("/"), !file.hasPrefix(".") else {
            yaml.report(node, key: key, "\(EchoedInput.quoted(file)): name a file in the family's own folder")
            return nil
        }
        let path = (directory as NSString).appendingPathComponent(file)
        let label = folder.label(path)
        if let facts = folder.precomputedFacts?(path) {
            let known = CatalogueCertificateFile(facts: facts, label: label)
            files[file] = known
            return known
        }
        do {
            let text = try folder.read(path)
            let certificates = try CatalogueCertificateFile.read(text, label: label)
            guard certificates.count == 1 else {
                yaml.report(node, key: key, "\(label) holds \(certificates.count) certificates; a catalogue file holds one")
                return nil
            }
            files[file] = certificates[0]
            return certificates[0]
        } catch let error as RegularFile.ReadError {
            yaml.report(node, key: key, error.description)
        } catch {
            yaml.report(node, key: key, "\(label): not a certificate (\(error))")
        }
        return nil
    }

    private mutating func transition(_ node: Node, key: String) -> CatalogueTransition? {
        guard let values = yaml.mapping(node, key: key, allowed: Self.transitionKeys) else { return nil }
        let name = yaml.required(values, "name", key: key, in: node)
        let effective = values["effective"] == nil ? nil : yaml.date(values["effective"], key: "\(key).effective")
        if values["effective"] == nil { yaml.report(node, key: key, "needs effective: the date issuance moves") }
        let source = yaml.required(values, "source", key: key, in: node)
        let roots = certificates(values["roots"], key: "\(key).roots", role: .root)
        let intermediates = pool(values["intermediates"], key: "\(key).intermediates")
        guard let name, let effective, let source else { return nil }
        return CatalogueTransition(name: name, effective: effective, roots: roots, intermediates: intermediates, source: source)
    }

    /// `{state: retired, from: 2026-07-08, source: URL}`: a state the CA
    /// published, from a date (inclusive) until another (exclusive).
    private mutating func period(_ node: Node, key: String) -> CatalogueIntermediate.Period? {
        guard let values = yaml.mapping(node, key: key, allowed: Self.periodKeys),
            let stateText = yaml.required(values, "state", key: key, in: node)
        else { return nil }
        guard let state = CatalogueIntermediate.State(rawValue: stateText) else {
            yaml.report(values["state"], key: "\(key).state", "expected active, standby or retired, found \(EchoedInput.quoted(stateText))")
            return nil
        }
        let from = values["from"] == nil ? nil : yaml.date(values["from"], key: "\(key).from")
        let until = values["until"] == nil ? nil : yaml.date(values["until"], key: "\(key).until")
        let source = yaml.required(values, "source", key: key, in: node)
        if let from, let until, until <= from { yaml.report(values["until"], key: "\(key).until", "until is not after from") }
        return CatalogueIntermediate.Period(state: state, from: from, until: until, source: source)
    }

    private mutating func lifetime(_ node: Node, key: String) -> LifetimeStep? {
        guard let values = yaml.mapping(node, key: key, allowed: Self.lifetimeKeys) else { return nil }
        if values["from"] == nil { yaml.report(node, key: key, "needs from: the date the lifetime applies from") }
        let from = yaml.date(values["from"], key: "\(key).from")
        if values["days"] == nil { yaml.report(node, key: key, "needs days") }
        let days = yaml.integer(values["days"], key: "\(key).days", in: 1...3650)
        let source = yaml.required(values, "source", key: key, in: node)
        guard let from, let days, let source else { return nil }
        return LifetimeStep(from: from, days: days, source: source)
    }
}
