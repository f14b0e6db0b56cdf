/// One probe of a host made of several (`addresses: all`, `key_types:`):
/// what views list per address and key type.
public struct VariantVerdict: Hashable, Sendable {
    public var variant: ProbeVariant
    public var status: HostStatus
    public var severity: HostSeverity
    public var reason: String
    /// SHA-256 of each certificate of the chain, leaf first, in hex: two
    /// probes serve the same chain when these are equal.
    public var chainSHA256: [String]
    /// The leaf's issuer: the intermediate a client of this probe meets.
    public var leafIssuer: String?
    /// The probe's failure, one line; nil when it got a chain.
    public var error: String?
    /// The chain itself, leaf first: `y` copies the stanza of the one most
    /// probes serve, and the history records each probe's.
    public var levels: [LevelReport]

    public init(variant: ProbeVariant, report: HostReport) {
        self.variant = variant
        status = report.status
        severity = report.severity
        reason = report.reason
        chainSHA256 = report.levels.map { PinText.hex($0.certificate.facts.certSHA256) }
        leafIssuer = report.levels.first?.certificate.facts.issuer
        error = report.result.failure?.message
        levels = report.levels
    }
}

/// A host made of several probes gets the verdict of its worst one, and
/// a row that says how its probes agree.
public enum VariantFold {
    /// `outcomes` in probe order; `notProbed`: addresses outside this
    /// cycle's window (past `AddressExpansion.maximumAddresses`), named so
    /// the cap is never silent.
    public static func fold(_ outcomes: [(variant: ProbeVariant, report: HostReport)], notProbed: [String] = []) -> HostReport? {
        guard let worstRank = outcomes.map(\.report.severity.rank).max(),
            let chosen = outcomes.indices.first(where: { outcomes[$0].report.severity.rank == worstRank })
        else { return nil }
        let verdicts = outcomes.map { VariantVerdict(variant: $0.variant, report: $0.report) }
        let worst = verdicts[chosen]
        var agreement = addressAgreement(verdicts, around: worst)
        if !notProbed.isEmpty { agreement.text += " (\(notProbedText(notProbed)))" }
        let divergence = keyTypeDivergence(verdicts, worst: worst) ?? (agreement.differs ? agreement.text : nil)
        return outcomes[chosen].report.folding(
            variants: verdicts, agreement: agreement.text, divergence: divergence.map { ($0, worst.variant.label) },
            notProbed: notProbed)
    }

    /// "not probed this cycle: 127.0.0.65, … and 14 more; every address
    /// within 2 cycles": the first few by name (the JSON lists them all).
    static func notProbedText(_ notProbed: [String]) -> String {
        let named = 4
        var list = notProbed.prefix(named).joined(separator: ", ")
        if notProbed.count > named { list += " and \(notProbed.count - named) more" }
        let total = AddressExpansion.maximumAddresses + notProbed.count
        return "\(notProbed.count) not probed this cycle: \(list); all \(total) within "
            + "\(AddressExpansion.windowCount(total)) cycles, \(AddressExpansion.maximumAddresses) at a time"
    }

    /// Among the worst probe's key type, how many addresses serve a chain
    /// other than the one most of them serve.
    /// Key types alone serve different chains by design (an ECDSA and an
    /// RSA leaf): their agreement is each one's status.
    static func addressAgreement(_ verdicts: [VariantVerdict], around worst: VariantVerdict) -> (text: String, differs: Bool) {
        guard verdicts.contains(where: { $0.variant.address != nil }) else {
            let statuses = verdicts.map { "\($0.variant.label) \($0.error == nil ? $0.status.rawValue : "error")" }
            return (statuses.joined(separator: ", "), false)
        }
        let group = verdicts.filter { $0.variant.keyType == worst.variant.keyType }
        let common = commonChain(of: group)
        let others = group.filter { $0.chainSHA256 != common || $0.error != nil }
        let noun = "addresses"
        guard !others.isEmpty else { return ("\(group.count)/\(group.count) same chain", false) }
        let failing = others.filter { $0.error != nil }.count
        let verb: String
        switch failing {
        case others.count: verb = "fail"
        case 0: verb = "serve another chain"
        default: verb = "serve another chain or fail"
        }
        return ("\(others.count) of \(group.count) \(noun) \(verb)", true)
    }

    /// The chain most probes got (the first of equals); failures serve none.
    public static func commonChain(of verdicts: [VariantVerdict]) -> [String] {
        var counts: [[String]: Int] = [:]
        var order: [[String]] = []
        for verdict in verdicts where verdict.error == nil {
            if counts[verdict.chainSHA256] == nil { order.append(verdict.chainSHA256) }
            counts[verdict.chainSHA256, default: 0] += 1
        }
        let most = counts.values.max() ?? 0
        return order.first { counts[$0] == most } ?? []
    }

    /// The chain most of the host's probes got (the first of equals), for
    /// the stanza `y` copies; nil for a host probed once.
    public static func chainMostProbesServe(_ report: HostReport) -> [ChainCertificate]? {
        let common = commonChain(of: report.variants)
        guard !common.isEmpty else { return nil }
        return report.variants.first { $0.chainSHA256 == common && $0.error == nil }?.levels.map(\.certificate)
    }

    /// "RSA clients get a chain under CN=R11 that no pin matches": when the
    /// worst probe offered one key type and another key type fared better.
    static func keyTypeDivergence(_ verdicts: [VariantVerdict], worst: VariantVerdict) -> String? {
        guard let keyType = worst.variant.keyType,
            verdicts.contains(where: { $0.variant.keyType != keyType && $0.severity.rank < worst.severity.rank })
        else { return nil }
        let clients = "\(keyType.rawValue.uppercased()) clients"
        if let error = worst.error { return "\(clients) get no chain: \(error)" }
        let under = worst.leafIssuer.map { " under \(firstName(of: $0))" } ?? ""
        switch worst.status {
        case .blocked: return "\(clients) get a chain\(under) that no pin matches"
        default: return "\(clients) get another chain\(under)"
        }
    }

    /// `CN=R11` of `CN=R11,O=Let's Encrypt,C=US`.
    static func firstName(of distinguishedName: String) -> String {
        var escaped = false
        for (offset, character) in distinguishedName.enumerated() {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                return String(distinguishedName.prefix(offset))
            }
        }
        return distinguishedName
    }
}
