import Foundation

/// Judges a host's pins against the chains it may serve next: the same
/// intermediate, the pool in force on the judging date, the family's
/// announced hierarchy, and the other CA families of its provider. Each
/// next chain is what the CA would send (a fresh leaf, the intermediate and
/// the cross-signs it serves with it), judged on the path a client builds
/// from it (`ClientPath`) against the store the host is judged with.
public enum NextChainAnalysis {
    /// Nil without pins or a chain (nothing to survive).
    /// - Parameters:
    ///   - provider: the host's `provider:`; nil infers one only from a key
    ///     the catalogue says is exclusive to a provider.
    ///   - store: the client's trust store.
    ///   - trusted: whether today's chain verified; an untrusted chain gets
    ///     no recommended pins.
    ///   - now: the judging date: which pool and transitions are in force.
    public static func analyse(
        levels: [LevelReport], pins: PinSet, provider: String?, catalogue: Catalogue, store: TrustStore, trusted: Bool,
        now: Date
    ) -> NextChains? {
        let pinList = pins.all
        guard !pinList.isEmpty, let leaf = levels.first?.certificate.facts else { return nil }
        let caLevels = levels.dropFirst().map(\.certificate.facts)
        let servedToday = levels.dropFirst().filter(\.certificate.fromServer).map(\.certificate.facts)
        let place = CataloguePlace.locate(caLevels, in: catalogue)
        let keyFamily = place.intermediate?.certificate.keyFamily ?? caLevels.first.map { KeyFamily(keyDescription: $0.keyDescription) }
        let provider = resolvedProvider(named: provider, caLevels: caLevels, catalogue: catalogue)
        let judge = Judge(leaf: leaf, pins: pinList, store: store, catalogue: catalogue)

        var chains: [NextChain] = []
        let servedName = place.intermediate?.certificate.name ?? caLevels.first.map { shortName($0.subject) }
        chains.append(judge.chain(.leafRenewal, via: servedName ?? "the served intermediate", served: [servedToday]))

        var pool: [String] = []
        if let family = place.family, family.knowsPool {
            let members = CatalogueHierarchy.pool(of: family, on: now, keyFamily: keyFamily)
            pool = ([place.intermediate].compactMap { $0 } + members).reduce(into: [String]()) { names, member in
                if !names.contains(member.certificate.name) { names.append(member.certificate.name) }
            }
            for sibling in members where !caLevels.contains(where: sibling.certificate.sharesKey(with:)) {
                chains.append(judge.chain(.intermediateRotation, via: sibling.certificate.name, served: [sibling.servedChain]))
            }
            for transition in CatalogueHierarchy.pending(in: family, on: now) where transition != place.transition {
                let members = CatalogueHierarchy.pool(of: transition, keyFamily: keyFamily)
                chains.append(
                    members.isEmpty
                        ? judge.rootsOnly(
                            .rootTransition, via: transition.name, roots: CatalogueHierarchy.roots(transition.roots, keyFamily: keyFamily),
                            from: transition.effective)
                        : judge.chain(.rootTransition, via: transition.name, served: members.map(\.servedChain), from: transition.effective)
                )
            }
        } else if let family = place.family {
            let unknown = "the catalogue does not know \(family.displayName)'s issuing pool, only its roots"
            chains.append(NextChain(scenario: .intermediateRotation, via: family.displayName, survives: nil, reason: unknown))
            chains.append(NextChain(scenario: .rootTransition, via: family.displayName, survives: nil, reason: unknown))
        } else {
            let name = caLevels.last.map { shortName($0.subject) } ?? "unknown"
            let unknown = "the catalogue does not know this CA (\(name))"
            chains.append(NextChain(scenario: .intermediateRotation, via: "a CA not in the catalogue", survives: nil, reason: unknown))
            chains.append(NextChain(scenario: .rootTransition, via: "a CA not in the catalogue", survives: nil, reason: unknown))
        }
        if let provider {
            for name in provider.families where name != place.family?.name {
                guard let other = catalogue.family(named: name) else { continue }
                let members = CatalogueHierarchy.pool(of: other, on: now, keyFamily: keyFamily)
                chains.append(
                    members.isEmpty
                        ? judge.rootsOnly(
                            .caSwitch, via: other.displayName, roots: CatalogueHierarchy.roots(other.roots, keyFamily: keyFamily))
                        : judge.chain(.caSwitch, via: other.displayName, served: members.map(\.servedChain)))
            }
        }
        // A pin no level matches today may still be on a next chain's path
        // (Generation Y's YE1 ← Root YE ← ISRG Root X2 for an X2 pin on the
        // E6 ← X1 chain). Clients refuse the host today, so nothing of
        // theirs "survives" and no failing pin "carries" anything: the
        // chain is unjudged, and the reason says what it would match.
        // A host with a matching pin today keeps its carriers: a backup pin
        // for the next CA is the point of having one.
        let refusedToday = levels.allSatisfy { $0.matches.isEmpty }
        for index in chains.indices where refusedToday && !chains[index].carriedBy.isEmpty {
            guard let pin = chains[index].carriedBy.first else { continue }
            chains[index].survives = nil
            chains[index].carriedBy = []
            chains[index].reason =
                "clients refuse the host today; this chain would put \(pin.text), a pin no level matches now, on their path"
        }
        let recommended = trusted ? recommendation(chains, pins: pinList) : []
        return NextChains(
            family: place.family?.displayName, provider: provider?.displayName, chains: chains, pool: pool,
            recommended: recommended, untrusted: !trusted)
    }

    /// The fewest keys, each on a client path, that carry every judged path
    /// no pin carries yet (forward paths included: a root a store may add).
    static func recommendation(_ chains: [NextChain], pins: [Pin]) -> [RecommendedPin] {
        let open = chains.filter { $0.survives != nil }.flatMap { $0.paths + $0.forwardPaths }
            .filter { $0.anchored && $0.carrier(among: pins) == nil }
        return PinRecommendation.minimal(covering: open).map { certificate in
            RecommendedPin(pin: PinText.sha256(certificate.facts.spkiSHA256), subject: certificate.name, isRoot: certificate.isRoot)
        }
    }

    /// The declared provider, or the one whose exclusive key the chain carries.
    static func resolvedProvider(named name: String?, caLevels: [CertificateFacts], catalogue: Catalogue) -> CatalogueProvider? {
        if let name { return catalogue.provider(named: name) }
        return catalogue.providers.first { provider in
            caLevels.contains { facts in provider.exclusiveKeys.contains(facts.spkiSHA256) }
        }
    }

    /// `R10` from `CN=R10,O=Let's Encrypt,C=US`.
    static func shortName(_ subject: String) -> String { EchoedInput.shortened(CertificateName.short(subject)) }
}
