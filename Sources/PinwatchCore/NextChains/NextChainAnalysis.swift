import Foundation

/// Judges a host's pins against the chains it may serve next: the same
/// intermediate, its pool's siblings, the family's announced hierarchy,
/// and the other CA families of its provider (issue 26 §2).
public enum NextChainAnalysis {
    /// Nil without pins or a chain (nothing to survive).
    /// - Parameter provider: the host's `provider:`; nil infers one only
    ///   from a key the catalogue says is exclusive to a provider.
    public static func analyse(
        levels: [LevelReport], pins: PinSet, provider: String?, catalogue: Catalogue
    ) -> NextChains? {
        let pinList = pins.all
        guard !pinList.isEmpty, !levels.isEmpty else { return nil }
        let caLevels = levels.dropFirst().map(\.certificate.facts)
        let served = levels.dropFirst().map { level in
            NextChainCertificate(
                name: shortName(level.certificate.facts.subject), facts: level.certificate.facts, isRoot: level.role == .root)
        }
        let place = CataloguePlace.locate(caLevels, in: catalogue)
        let keyFamily = place.intermediate?.certificate.keyFamily ?? caLevels.first.map { KeyFamily(keyDescription: $0.keyDescription) }
        let provider = resolvedProvider(named: provider, caLevels: caLevels, catalogue: catalogue)

        var chains: [NextChain] = []
        var leafPath = served
        if let family = place.family, let intermediate = place.intermediate {
            leafPath += CataloguePaths.path(of: intermediate, in: family).certificates
        }
        chains.append(
            judged(
                .leafRenewal, via: place.intermediate?.certificate.name ?? served.first?.name ?? "the served intermediate",
                paths: [NextChainPath(certificates: leafPath)], pins: pinList))

        var pool: [String] = []
        if let family = place.family {
            let members = CataloguePaths.pool(around: place, keyFamily: keyFamily)
            pool = members.map(\.certificate.name)
            for sibling in members where !caLevels.contains(where: sibling.certificate.sharesKey(with:)) {
                chains.append(
                    judged(
                        .intermediateRotation, via: sibling.certificate.name,
                        paths: [CataloguePaths.path(of: sibling, in: family)], pins: pinList))
            }
            for transition in family.transitions where transition != place.transition {
                chains.append(
                    judged(
                        .rootTransition, via: transition.name,
                        paths: CataloguePaths.paths(
                            intermediates: transition.intermediates, roots: transition.roots, in: family, keyFamily: keyFamily),
                        pins: pinList, from: transition.effective))
            }
        } else {
            let unknown = "a CA the catalogue does not know (\(served.last?.name ?? "unknown"))"
            chains.append(NextChain(scenario: .intermediateRotation, via: unknown, survives: nil))
            chains.append(NextChain(scenario: .rootTransition, via: unknown, survives: nil))
        }
        if let provider {
            for name in provider.families where name != place.family?.name {
                guard let other = catalogue.family(named: name) else { continue }
                chains.append(
                    judged(
                        .caSwitch, via: other.displayName,
                        paths: CataloguePaths.paths(
                            intermediates: other.intermediates, roots: other.roots, in: other, keyFamily: keyFamily),
                        pins: pinList))
            }
        }
        let broken = chains.filter { $0.survives == false }.flatMap(\.paths).filter { $0.carrier(among: pinList) == nil }
        let recommended = PinRecommendation.minimal(covering: broken).map { certificate in
            RecommendedPin(pin: PinText.sha256(certificate.facts.spkiSHA256), subject: certificate.name, isRoot: certificate.isRoot)
        }
        return NextChains(
            family: place.family?.displayName, provider: provider?.displayName, chains: chains, pool: pool,
            recommended: recommended)
    }

    /// The declared provider, or the one whose exclusive key the chain carries.
    static func resolvedProvider(named name: String?, caLevels: [CertificateFacts], catalogue: Catalogue) -> CatalogueProvider? {
        if let name { return catalogue.provider(named: name) }
        return catalogue.providers.first { provider in
            caLevels.contains { facts in provider.exclusiveKeys.contains(facts.spkiSHA256) }
        }
    }

    private static func judged(
        _ scenario: NextChainScenario, via: String, paths: [NextChainPath], pins: [Pin], from: Date? = nil
    ) -> NextChain {
        let carriers = paths.map { $0.carrier(among: pins) }
        var carriedBy: [Pin] = []
        for case let pin? in carriers where !carriedBy.contains(pin) { carriedBy.append(pin) }
        let survives = !paths.isEmpty && carriers.allSatisfy { $0 != nil }
        return NextChain(
            scenario: scenario, via: via, survives: survives, carriedBy: survives ? carriedBy : [], from: from, paths: paths)
    }

    /// `R10` from `CN=R10,O=Let's Encrypt,C=US`.
    static func shortName(_ subject: String) -> String {
        let name = HistoryTimeline.commonName(subject)
        return name.hasPrefix("CN=") ? String(name.dropFirst(3)) : name
    }
}
