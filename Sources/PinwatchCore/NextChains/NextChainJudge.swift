import Foundation

/// Judges one next chain: a fresh leaf with what the CA would send after
/// it, the path a client builds from that against its store, and the pins
/// on that path.
struct Judge {
    let leaf: CertificateFacts
    let pins: [Pin]
    let store: TrustStore
    let catalogue: Catalogue

    /// `served`: each chain the scenario may land on, without the leaf
    /// (intermediate first); the scenario survives only if every one does.
    func chain(_ scenario: NextChainScenario, via: String, served: [[CertificateFacts]], from: Date? = nil) -> NextChain {
        var paths: [NextChainPath] = []
        var forward: [NextChainPath] = []
        var addedRoots: [String] = []
        for chain in served {
            let sent = [freshLeaf(issuer: chain.first)] + chain
            let path = ClientPath.build(served: sent, store: store)
            paths.append(nextPath(path))
            for root in rootsAStoreMayAdd(on: path) {
                let later = nextPath(ClientPath.build(served: sent, store: store.adding(root.facts)))
                guard later != paths.last, later.anchored else { continue }
                forward.append(later)
                if later.carrier(among: pins) == nil, !addedRoots.contains(root.name) { addedRoots.append(root.name) }
            }
        }
        let carriers = paths.map { $0.anchored ? $0.carrier(among: pins) : nil }
        var carriedBy: [Pin] = []
        for case let pin? in carriers where !carriedBy.contains(pin) { carriedBy.append(pin) }
        let survives = !paths.isEmpty && carriers.allSatisfy { $0 != nil }
        var reason: String?
        if paths.contains(where: { !$0.anchored }) {
            reason = "\(store.name) holds no root on its path: refused whatever is pinned"
        } else if survives, !addedRoots.isEmpty {
            let names = addedRoots.joined(separator: " or ")
            // The date says how far "every store this data knows of" reaches.
            let dated = catalogue.families.compactMap(\.dataDate).max().map { " (data of \(DateText.day($0)))" } ?? ""
            reason =
                "survives on stores without \(names), which is every store this data knows of\(dated); "
                + "breaks where a store adds it: pin \(addedRoots.joined(separator: " and ")) too"
        }
        return NextChain(
            scenario: scenario, via: via, survives: survives, carriedBy: survives ? carriedBy : [], from: from, paths: paths,
            reason: reason, forwardPaths: forward)
    }

    /// A family (or hierarchy) known by its roots only: a leaf under it
    /// reaches one of them, through an intermediate nobody can pin yet.
    func rootsOnly(_ scenario: NextChainScenario, via: String, roots: [CatalogueCertificate], from: Date? = nil) -> NextChain {
        let paths = roots.map { root in
            NextChainPath(
                certificates: [NextChainCertificate(name: root.name, facts: root.facts, isRoot: true)], anchored: store.holds(root.facts))
        }
        let carriers = paths.map { $0.anchored ? $0.carrier(among: pins) : nil }
        var carriedBy: [Pin] = []
        for case let pin? in carriers where !carriedBy.contains(pin) { carriedBy.append(pin) }
        let survives = !paths.isEmpty && carriers.allSatisfy { $0 != nil }
        return NextChain(
            scenario: scenario, via: via, survives: survives, carriedBy: survives ? carriedBy : [], from: from, paths: paths,
            reason: "judged by its roots: the catalogue does not know its intermediates")
    }

    /// The renewed leaf: the same names under `issuer`, and a key no pin
    /// can already name.
    private func freshLeaf(issuer: CertificateFacts?) -> CertificateFacts {
        var fresh = leaf
        fresh.issuer = issuer?.subject ?? leaf.issuer
        fresh.spkiSHA256 = []
        fresh.keySHA256 = []
        fresh.certSHA256 = []
        fresh.spkiSHA1 = []
        fresh.isSelfSigned = false
        return fresh
    }

    /// The CA part of a client path, named as the catalogue names it.
    private func nextPath(_ path: ClientPath) -> NextChainPath {
        let ca = path.certificates.dropFirst()
        return NextChainPath(
            certificates: ca.enumerated().map { index, facts in
                let isAnchor = path.anchored && index == ca.count - 1
                return NextChainCertificate(name: name(of: facts), facts: facts, isRoot: isAnchor || facts.isSelfSigned)
            }, anchored: path.anchored)
    }

    /// Catalogue roots the store lacks whose key a cross-sign on the path
    /// carries (Root YR, served signed by ISRG Root X1): a store that adds
    /// one cuts the path there.
    private func rootsAStoreMayAdd(on path: ClientPath) -> [CatalogueCertificate] {
        let roots = catalogue.families.flatMap { $0.roots + $0.transitions.flatMap(\.roots) }.filter { root in
            root.facts.isSelfSigned && !store.holds(root.facts)
        }
        return path.certificates.dropFirst().flatMap { facts in
            roots.filter { $0.facts.subject == facts.subject && $0.facts.spkiSHA256 == facts.spkiSHA256 }
        }
    }

    private func name(of facts: CertificateFacts) -> String {
        let key = facts.spkiSHA256
        let known = catalogue.families.first { $0.containsKey(key) }?.allCertificates.first { $0.facts.spkiSHA256 == key }
        return known?.name ?? NextChainAnalysis.shortName(facts.subject)
    }
}
