import Foundation

/// An issuer Certificate Transparency showed issuing for a watched name,
/// placed in the catalogue family its logged chain hangs from: dated
/// evidence of a pool member, beside the pool the data declares (or in
/// place of one the data does not know).
public struct ObservedIssuer: Hashable, Sendable {
    public var family: String
    public var facts: CertificateFacts
    /// When the first and the last certificate under it were logged.
    public var firstSeen: Date
    public var lastSeen: Date
    /// The family's pool (today's or a transition's) lists its key already.
    public var inPool: Bool
    /// What was logged above it, roots left out: the cross-signs the CA
    /// sends with it, so a client's path through it can be judged.
    public var servedAbove: [CertificateFacts] = []

    /// One logged certificate: when, and its chain as logged (the
    /// certificate first, then its issuers).
    public typealias Logging = (loggedAt: Date, chain: [CertificateFacts])

    /// Each issuer of `logged` that hangs from a family of `catalogue` (by
    /// its own key or an issuer's above it), once per family and key,
    /// ordered by family then first sighting. Chains of no known family
    /// are left out: there is no pool to place them in.
    public static func observed(_ logged: [Logging], in catalogue: Catalogue) -> [ObservedIssuer] {
        var found: [String: ObservedIssuer] = [:]
        for logging in logged {
            guard logging.chain.count > 1 else { continue }
            let issuer = logging.chain[1]
            guard let family = logging.chain.dropFirst().lazy.compactMap(catalogue.family(containing:)).first else { continue }
            let key = family.name + "\u{0}" + issuer.spkiSHA256.map { String($0) }.joined(separator: ",")
            if var known = found[key] {
                known.firstSeen = min(known.firstSeen, logging.loggedAt)
                known.lastSeen = max(known.lastSeen, logging.loggedAt)
                found[key] = known
            } else {
                let pool = family.intermediates + family.transitions.flatMap(\.intermediates)
                found[key] = ObservedIssuer(
                    family: family.name, facts: issuer, firstSeen: logging.loggedAt, lastSeen: logging.loggedAt,
                    inPool: pool.contains { $0.certificate.sharesKey(with: issuer) },
                    servedAbove: logging.chain.dropFirst(2).filter { !$0.isSelfSigned })
            }
        }
        let order = Dictionary(uniqueKeysWithValues: catalogue.families.enumerated().map { ($1.name, $0) })
        return found.values.sorted {
            (order[$0.family] ?? 0, $0.firstSeen, $0.facts.subject) < (order[$1.family] ?? 0, $1.firstSeen, $1.facts.subject)
        }
    }
}

extension Catalogue {
    /// The catalogue with each family whose issuing pool it does not know
    /// given one from evidence: the issuers CT showed under it, as active
    /// members named `… (seen in CT)`, each with what was logged above it.
    /// Families with a declared pool keep it as declared: the data says
    /// which members are standby or retired, a sighting does not.
    public func addingObserved(_ observed: [ObservedIssuer]) -> Catalogue {
        var catalogue = self
        for index in catalogue.families.indices where !catalogue.families[index].knowsPool {
            let family = catalogue.families[index]
            for issuer in observed where issuer.family == family.name && !issuer.inPool {
                let above = issuer.servedAbove
                let root =
                    family.roots.first { root in ([issuer.facts] + above).contains { $0.issuer == root.facts.subject } }
                    ?? family.roots.first
                let name = NextChainAnalysis.shortName(issuer.facts.subject) + " (seen in CT)"
                let source = "Certificate Transparency, last logged \(DateText.day(issuer.lastSeen))"
                catalogue.families[index].intermediates.append(
                    CatalogueIntermediate(
                        certificate: CatalogueCertificate(name: name, facts: issuer.facts, file: source), state: .active,
                        root: root?.name ?? family.displayName,
                        servedWith: above.map {
                            CatalogueCertificate(name: NextChainAnalysis.shortName($0.subject), facts: $0, file: source)
                        }))
            }
        }
        return catalogue
    }
}
