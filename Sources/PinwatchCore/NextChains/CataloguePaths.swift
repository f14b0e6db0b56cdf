import Foundation

/// Where a served chain sits in the catalogue: its family, and the
/// intermediate (and transition) it was issued under when the catalogue
/// holds it. A chain known only by its root has no intermediate.
struct CataloguePlace: Sendable {
    var family: CatalogueFamily?
    var intermediate: CatalogueIntermediate?
    var transition: CatalogueTransition?

    static func locate(_ caLevels: [CertificateFacts], in catalogue: Catalogue) -> CataloguePlace {
        for facts in caLevels {
            for family in catalogue.families {
                if let found = family.intermediates.first(where: { $0.certificate.sharesKey(with: facts) }) {
                    return CataloguePlace(family: family, intermediate: found, transition: nil)
                }
                for transition in family.transitions {
                    if let found = transition.intermediates.first(where: { $0.certificate.sharesKey(with: facts) }) {
                        return CataloguePlace(family: family, intermediate: found, transition: transition)
                    }
                }
            }
        }
        return CataloguePlace(family: caLevels.lazy.compactMap(catalogue.family(containing:)).first)
    }
}

/// The CA certificates a pin may match on a chain the catalogue predicts.
enum CataloguePaths {
    /// An intermediate with its root and, where the root is cross-signed,
    /// the cross-sign and the root that signed it: a client pinning any of
    /// those keys accepts the chain.
    static func path(of intermediate: CatalogueIntermediate, in family: CatalogueFamily) -> NextChainPath {
        let issuer = intermediate.certificate.facts.issuer
        let roots = allRoots(of: family).filter { $0.name == intermediate.root || $0.facts.subject == issuer }
        return NextChainPath(
            certificates: [NextChainCertificate(name: intermediate.certificate.name, facts: intermediate.certificate.facts, isRoot: false)]
                + withCrossSigns(roots, in: family))
    }

    /// One path per intermediate a new leaf may land on (not retired, of
    /// the leaf's key type when the family issues under it); a hierarchy
    /// announced without intermediates yet is judged by its roots.
    static func paths(
        intermediates: [CatalogueIntermediate], roots: [CatalogueCertificate], in family: CatalogueFamily, keyFamily: KeyFamily?
    ) -> [NextChainPath] {
        let live = intermediates.filter { $0.state != .retired }
        let sameType = live.filter { $0.certificate.keyFamily == keyFamily }
        let chosen = sameType.isEmpty ? live : sameType
        guard chosen.isEmpty else { return chosen.map { path(of: $0, in: family) } }
        return roots.map { NextChainPath(certificates: withCrossSigns([$0], in: family)) }
    }

    /// The intermediates issuance rotates among around the served one:
    /// same hierarchy, same key type, not retired (the served one kept).
    static func pool(around place: CataloguePlace, keyFamily: KeyFamily?) -> [CatalogueIntermediate] {
        guard let family = place.family else { return [] }
        let hierarchy = place.transition?.intermediates ?? family.intermediates
        return hierarchy.filter { member in
            member == place.intermediate
                || (member.state != .retired && member.certificate.keyFamily == keyFamily)
        }
    }

    private static func allRoots(of family: CatalogueFamily) -> [CatalogueCertificate] {
        family.roots + family.transitions.flatMap(\.roots)
    }

    private static func withCrossSigns(_ roots: [CatalogueCertificate], in family: CatalogueFamily) -> [NextChainCertificate] {
        let crossSigns = family.crossSigns.filter { cross in roots.contains { $0.sharesKey(with: cross.facts) } }
        let signers = allRoots(of: family).filter { root in crossSigns.contains { $0.facts.issuer == root.facts.subject } }
        var seen: [CatalogueCertificate] = []
        for certificate in roots + crossSigns + signers where !seen.contains(certificate) { seen.append(certificate) }
        return seen.map { NextChainCertificate(name: $0.name, facts: $0.facts, isRoot: true) }
    }
}
