import Foundation

/// The one human description of a certificate: what `inspect`, `pin` and
/// the dashboard's detail view show, row by row, and the facts object of
/// the JSON outputs.
///
/// Rows carry meaning, not style: the dashboard maps a `Meaning` to
/// colours, the listings print the rows as text. Certificate strings are
/// left as decoded; whoever prints them sanitises them (the Frame for the
/// dashboard, `ChainListing` for text).
public struct CertificateDescription: Sendable {
    public enum Meaning: Hashable, Sendable {
        /// The subject, coloured by the level's role on screen.
        case subject
        case plain
        /// The validity period, coloured by the days left.
        case validity(daysLeft: Int)
        /// A pin the user can copy.
        case pin
    }

    public struct Row: Hashable, Sendable {
        /// Empty for a continuation line of the row above.
        public var label: String
        public var value: String
        public var meaning: Meaning

        public init(label: String, value: String, meaning: Meaning) {
            self.label = label
            self.value = value
            self.meaning = meaning
        }
    }

    public let facts: CertificateFacts
    public let daysLeft: Int
    /// When the days were counted (the probe's end); with it, the validity
    /// row gives the hours of a short remainder.
    public let countedAt: Date?

    public init(_ facts: CertificateFacts, daysLeft: Int, countedAt: Date? = nil) {
        self.facts = facts
        self.daysLeft = daysLeft
        self.countedAt = countedAt
    }

    /// Below this many days the hours are given too: days are whole and
    /// rounded down everywhere (a leaf with 8 days 23 hours left is "8
    /// days"), which is a day short where other tools round.
    public static let hoursShownBelowDays = 10

    /// `59 days left`, `8 d 23 h left`, `EXPIRED 3 days ago`.
    public static func daysText(_ daysLeft: Int, secondsLeft: TimeInterval? = nil) -> String {
        if daysLeft < 0 { return "EXPIRED \(-daysLeft) day\(daysLeft == -1 ? "" : "s") ago" }
        if let secondsLeft, secondsLeft >= 0, daysLeft < hoursShownBelowDays {
            let hours = Int(secondsLeft / 3_600)
            return "\(hours / 24) d \(hours % 24) h left"
        }
        return "\(daysLeft) day\(daysLeft == 1 ? "" : "s") left"
    }

    /// Every pin form, in the order they are shown (DESIGN §3).
    public var pinForms: [String] { PinForms(facts).all }

    public var rows: [Row] {
        var rows = [
            Row(label: "subject", value: facts.subject, meaning: .subject),
            Row(label: "issuer", value: facts.issuer, meaning: .plain),
            Row(
                label: "valid",
                value:
                    "\(DateText.readableUTC(facts.notBefore)) → \(DateText.readableUTC(facts.notAfter)) (\(Self.daysText(daysLeft, secondsLeft: countedAt.map { facts.notAfter.timeIntervalSince($0) })))",
                meaning: .validity(daysLeft: daysLeft)),
            Row(label: "lifetime", value: lifetimeText, meaning: .plain),
            Row(label: "key", value: facts.keyDescription + (facts.isCA ? " · CA" : ""), meaning: .plain),
        ]
        if !facts.subjectAltNames.isEmpty {
            rows.append(Row(label: "names", value: facts.subjectAltNames.joined(separator: ", "), meaning: .plain))
        }
        for (index, form) in pinForms.enumerated() {
            rows.append(Row(label: index == 0 ? "pins" : "", value: form, meaning: .pin))
        }
        return rows
    }

    /// `90 days, 72% used`; without the time it was counted at, the
    /// lifetime alone.
    public var lifetimeText: String {
        let lifetime = CertificateLifetime(facts)
        guard let countedAt else { return lifetime.daysText }
        return "\(lifetime.daysText), \(CertificateLifetime.percent(lifetime.used(at: countedAt))) used"
    }

    /// The facts as JSON fields, shared by the snapshot's chain levels and
    /// `pin --format json`. `exported` for a level rebuilt from a fleet's
    /// series: what no series carries is null, not the placeholder the
    /// facts hold for it.
    func writeFields(to fields: inout JSONObjectWriter, exported: ExportedFacts? = nil) {
        let whole = exported == nil
        let dated = exported?.dated ?? true
        fields.field("subject", facts.subject)
        fields.field("issuer", whole ? facts.issuer : nil)
        fields.field("not_before", whole ? DateText.iso8601(facts.notBefore) : nil)
        fields.field("not_after", dated ? DateText.iso8601(facts.notAfter) : nil)
        fields.field("days_left", dated ? daysLeft : nil)
        fields.field("key", whole ? facts.keyDescription : nil)
        fields.field("spki_sha256", PinText.base64(facts.spkiSHA256))
        fields.field("key_sha256", whole ? PinText.base64(facts.keySHA256) : nil)
        fields.field("cert_sha256", whole ? PinText.hex(facts.certSHA256) : nil)
    }

    /// What a fleet's series say of one level: its subject and SPKI pin
    /// always, its expiry only where a series gives it (`SeriesFacts`).
    struct ExportedFacts {
        var dated: Bool
    }
}

/// How a host's chain stands with its trust store, in words, for every
/// text output.
public enum TrustText {
    public static func describe(_ result: ProbeResult) -> String {
        if result.chain.isEmpty { return "no chain was obtained" }
        if result.trusted { return "trusted" }
        return "NOT trusted: \(result.trustError ?? "the verifier gave no reason")"
    }
}
