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

/// Which hierarchy is in force on a date: the intermediates a new leaf may
/// land on, and the transitions still to come.
enum CatalogueHierarchy {
    /// Not retired on `date`, of the leaf's key type; a transition's
    /// intermediates only from its effective date.
    static func pool(of family: CatalogueFamily, on date: Date, keyFamily: KeyFamily?) -> [CatalogueIntermediate] {
        let moved = family.transitions.filter { $0.effective <= date }.flatMap(\.intermediates)
        return (family.intermediates + moved).filter { member in
            member.state(on: date) != .retired && (keyFamily == nil || member.certificate.keyFamily == keyFamily)
        }
    }

    /// Every date on which `pool` or `pending` may answer differently, in
    /// order: each transition's effective date and each intermediate's
    /// period bounds. Two dates with as many of these on or before them get
    /// the same answers.
    static func changeDates(in catalogue: Catalogue) -> [Date] {
        var dates = Set<Date>()
        for family in catalogue.families {
            for transition in family.transitions {
                dates.insert(transition.effective)
                for member in transition.intermediates {
                    member.periods.forEach { dates.formUnion([$0.from, $0.until].compactMap { $0 }) }
                }
            }
            for member in family.intermediates { member.periods.forEach { dates.formUnion([$0.from, $0.until].compactMap { $0 }) } }
        }
        return dates.sorted()
    }

    /// Transitions announced for after `date`.
    static func pending(in family: CatalogueFamily, on date: Date) -> [CatalogueTransition] {
        family.transitions.filter { $0.effective > date }
    }

    /// A transition's intermediates a leaf may land on once it takes effect.
    static func pool(of transition: CatalogueTransition, keyFamily: KeyFamily?) -> [CatalogueIntermediate] {
        let live = transition.intermediates.filter { $0.state(on: transition.effective) != .retired }
        let sameType = live.filter { $0.certificate.keyFamily == keyFamily }
        return sameType.isEmpty ? live : sameType
    }

    /// A family's roots of the leaf's key type (all when none is): a family
    /// known by its roots only is judged by them.
    static func roots(_ roots: [CatalogueCertificate], keyFamily: KeyFamily?) -> [CatalogueCertificate] {
        let sameType = roots.filter { $0.keyFamily == keyFamily }
        return sameType.isEmpty ? roots : sameType
    }
}
