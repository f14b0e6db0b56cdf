import Foundation

/// `pinwatch catalogue` and `catalogue show NAME`, as text or JSON.
/// Certificate text is sanitised here: it comes from files.
public enum CatalogueListing {
    /// `observed`: issuers Certificate Transparency showed for the watched
    /// names (`ObservedIssuer`), listed under their family's pool.
    public static func text(_ catalogue: Catalogue, now: Date, observed: [ObservedIssuer] = []) -> String {
        var out = ""
        for family in catalogue.families {
            out += "\(clean(family.name)) — \(clean(family.displayName)) (\(family.origin)"
            out += family.dataDate.map { ", CCADB data of \(DateText.day($0))" } ?? ""
            out += family.retrieved.map { ", checked \(DateText.day($0))" } ?? ""
            out += ")\n"
            if let warning = staleness(family, now: now) { out += "  warning:      \(warning)\n" }
            out += "  roots:        \(names(family.roots))\n"
            if !family.crossSigns.isEmpty { out += "  cross-signs:  \(names(family.crossSigns))\n" }
            out += "  pool:         \(pool(family.intermediates, on: now))\n"
            for issuer in observed where issuer.family == family.name {
                out += "  observed:     \(clean(issuer.facts.subject)) in CT \(DateText.day(issuer.lastSeen))"
                out += issuer.inPool ? " (in the pool)\n" : " (not in the pool the data declares)\n"
            }
            for transition in family.transitions {
                out += "  transition:   \(clean(transition.name)) from \(DateText.day(transition.effective)): "
                out += "roots \(names(transition.roots)); pool \(pool(transition.intermediates, on: now))\n"
            }
            for step in family.lifetimes {
                out += "  lifetime:     \(step.days) days from \(DateText.day(step.from)) (\(clean(step.source)))\n"
            }
        }
        for provider in catalogue.providers {
            out +=
                "provider \(clean(provider.name)) — \(clean(provider.displayName)): \(provider.families.map(clean).joined(separator: ", "))\n"
        }
        return out
    }

    /// The data's age said out loud once it passes `staleAfterDays`.
    public static func staleness(_ family: CatalogueFamily, now: Date) -> String? {
        guard let age = family.dataAge(now: now), age > CatalogueFamily.staleAfterDays else { return nil }
        return "the data is \(age) days old (over \(CatalogueFamily.staleAfterDays)): its pools and transitions may have moved; "
            + "run `pinwatch catalogue update` with CCADB's current reports"
    }

    /// The oldest family's data date, for headers: `CA data 2026-08-21`,
    /// with `(stale)` past `staleAfterDays`.
    public static func dataSummary(_ catalogue: Catalogue, now: Date) -> String? {
        let dated = catalogue.families.filter { $0.origin != "config" }.compactMap { family in
            (family.dataDate ?? family.retrieved).map { (date: $0, family: family) }
        }
        guard let oldest = dated.min(by: { $0.date < $1.date }) else { return nil }
        return "CA data \(DateText.day(oldest.date))" + (staleness(oldest.family, now: now) == nil ? "" : " (stale)")
    }

    public static func json(_ catalogue: Catalogue, now: Date, observed: [ObservedIssuer] = []) -> String {
        let families = catalogue.families.map { family -> JSONValue in
            .object([
                ("name", .string(family.name)), ("display_name", .string(family.displayName)), ("origin", .string(family.origin)),
                ("retrieved", .optional(family.retrieved.map(DateText.day))),
                ("data_date", .optional(family.dataDate.map(DateText.day))),
                ("data_age_days", family.dataAge(now: now).map(JSONValue.int) ?? .null),
                ("stale", .bool(staleness(family, now: now) != nil)),
                ("roots", .array(family.roots.map { .string($0.name) })),
                ("cross_signs", .array(family.crossSigns.map { .string($0.name) })),
                ("intermediates", .array(family.intermediates.map { intermediateSummary($0, on: now) })),
                (
                    "observed",
                    .array(
                        observed.filter { $0.family == family.name }.map { issuer in
                            .object([
                                ("subject", .string(issuer.facts.subject)),
                                ("spki_sha256", .string(PinText.hex(issuer.facts.spkiSHA256))),
                                ("first_seen", .string(DateText.iso8601(issuer.firstSeen))),
                                ("last_seen", .string(DateText.iso8601(issuer.lastSeen))), ("in_pool", .bool(issuer.inPool)),
                            ])
                        })
                ),
                (
                    "transitions",
                    .array(
                        family.transitions.map { transition in
                            .object([
                                ("name", .string(transition.name)), ("effective", .string(DateText.day(transition.effective))),
                                ("source", .string(transition.source)), ("roots", .array(transition.roots.map { .string($0.name) })),
                                ("intermediates", .array(transition.intermediates.map { intermediateSummary($0, on: now) })),
                            ])
                        })
                ),
                (
                    "lifetimes",
                    .array(
                        family.lifetimes.map {
                            .object([("from", .string(DateText.day($0.from))), ("days", .int($0.days)), ("source", .string($0.source))])
                        })
                ),
            ])
        }
        let providers = catalogue.providers.map { provider -> JSONValue in
            .object([
                ("name", .string(provider.name)), ("display_name", .string(provider.displayName)),
                ("families", .array(provider.families.map(JSONValue.string))), ("source", .string(provider.source)),
            ])
        }
        return JSONValue.object([("families", .array(families)), ("providers", .array(providers))]).render() + "\n"
    }

    /// Every certificate of the family, with its role and all four pin forms.
    public static func showText(_ family: CatalogueFamily) -> String {
        var out = "\(clean(family.name)) — \(clean(family.displayName)) (\(family.origin))\n"
        for (role, certificate) in entries(family) {
            out += "\n\(clean(role)): \(clean(certificate.name))\n"
            out += "  subject   \(clean(certificate.facts.subject))\n"
            out += "  issuer    \(clean(certificate.facts.issuer))\n"
            out += "  valid     \(DateText.day(certificate.facts.notBefore)) → \(DateText.day(certificate.facts.notAfter))\n"
            out += "  key       \(clean(certificate.facts.keyDescription))\n"
            out += "  file      \(clean(certificate.file))\n"
            if let published = certificate.published { out += "  published \(clean(published))\n" }
            for (index, form) in PinForms(certificate.facts).all.enumerated() {
                out += (index == 0 ? "  pins      " : "            ") + form + "\n"
            }
        }
        return out
    }

    public static func showJSON(_ family: CatalogueFamily) -> String {
        let certificates = entries(family).map { role, certificate -> JSONValue in
            let forms = PinForms(certificate.facts)
            return .object([
                ("role", .string(role)), ("name", .string(certificate.name)), ("subject", .string(certificate.facts.subject)),
                ("issuer", .string(certificate.facts.issuer)), ("not_before", .string(DateText.iso8601(certificate.facts.notBefore))),
                ("not_after", .string(DateText.iso8601(certificate.facts.notAfter))), ("key", .string(certificate.facts.keyDescription)),
                ("file", .string(certificate.file)), ("published", .optional(certificate.published)),
                ("sha256", .string(forms.sha256)), ("spki", .string(forms.spki)), ("key_pin", .string(forms.key)),
                ("cert", .string(forms.cert)),
            ])
        }
        return JSONValue.object([
            ("name", .string(family.name)), ("display_name", .string(family.displayName)), ("origin", .string(family.origin)),
            ("certificates", .array(certificates)),
        ]).render() + "\n"
    }

    /// Roles in the order a chain reads from the top.
    static func entries(_ family: CatalogueFamily) -> [(String, CatalogueCertificate)] {
        var entries = family.roots.map { ("root", $0) } + family.crossSigns.map { ("cross-sign", $0) }
        entries += family.intermediates.map { ("intermediate (\($0.state.rawValue), under \($0.root))", $0.certificate) }
        for transition in family.transitions {
            entries += transition.roots.map { ("\(transition.name) root", $0) }
            entries += transition.intermediates.map {
                ("\(transition.name) intermediate (\($0.state.rawValue), under \($0.root))", $0.certificate)
            }
        }
        return entries
    }

    private static func intermediateSummary(_ intermediate: CatalogueIntermediate, on date: Date) -> JSONValue {
        .object([
            ("name", .string(intermediate.certificate.name)), ("state", .string(intermediate.state(on: date).rawValue)),
            ("root", .string(intermediate.root)),
        ])
    }

    private static func names(_ certificates: [CatalogueCertificate]) -> String {
        certificates.isEmpty ? "none" : certificates.map { clean($0.name) }.joined(separator: ", ")
    }

    /// Each intermediate with its state on `date`.
    private static func pool(_ intermediates: [CatalogueIntermediate], on date: Date) -> String {
        guard !intermediates.isEmpty else { return "none in the catalogue (judged by its roots: rotations unknown)" }
        return intermediates.map { "\(clean($0.certificate.name)) (\($0.state(on: date).rawValue))" }.joined(separator: ", ")
    }

    private static func clean(_ text: String) -> String { TerminalText.sanitize(text) }
}
