import Foundation

/// Whether a leaf's SCTs satisfy the Certificate Transparency policy of
/// Chrome, which Android's platform verifier applies: either SCTs embedded
/// in the certificate, 2 for a lifetime of 180 days or less and 3 beyond,
/// at least one from a log not retired; or 2 delivered in the handshake
/// (TLS extension or stapled OCSP) from logs not retired. Either way they
/// must come from at least 2 log operators. Only SCTs whose signature the
/// log's key verifies count, and only from logs the list gives a state
/// that counts (or none: a private list).
package struct CTCompliance: Hashable, Sendable {
    package var compliant: Bool
    /// What was counted, and for a non-compliant leaf what is missing.
    package var sentence: String

    /// Chrome's line between 2 and 3 embedded SCTs.
    static let longLifetime: TimeInterval = 180 * 86_400
    static let operatorsNeeded = 2
    /// States whose SCTs count; a retired log's only when embedded.
    static let countingStates: Set<String> = ["qualified", "usable", "readonly"]

    /// - Parameter scts: what the probe saw; nil when it collected nothing.
    package static func judge(_ scts: [ObservedSCT], leaf: CertificateFacts) -> CTCompliance {
        let valid = scts.filter { $0.check == .valid && stateCounts($0) }
        let embedded = valid.filter { $0.delivery == .embedded }
        let delivered = valid.filter { $0.delivery != .embedded && !isRetired($0) }
        let lifetime = leaf.notAfter.timeIntervalSince(leaf.notBefore)
        let embeddedNeeded = lifetime > longLifetime ? 3 : 2
        let embeddedOK =
            embedded.count >= embeddedNeeded && operators(of: embedded) >= operatorsNeeded && embedded.contains { !isRetired($0) }
        let deliveredOK = delivered.count >= 2 && operators(of: delivered) >= operatorsNeeded
        let compliant = embeddedOK || deliveredOK
        var parts: [String] = []
        if scts.isEmpty {
            parts.append("the leaf came with no SCT (none embedded, in the TLS extension or in a stapled OCSP response)")
        } else {
            parts.append(
                "\(count(embedded.count, "valid embedded SCT")) and \(count(delivered.count, "valid SCT")) delivered in the handshake, "
                    + "from \(count(operators(of: valid), "log operator"))")
            let forged = scts.filter { $0.check == .badSignature }.count
            if forged > 0 { parts.append("\(count(forged, "SCT")) not signed by its log's key") }
            let unknown = scts.filter { $0.check == .unknownLog }.count
            if unknown > 0 { parts.append("\(count(unknown, "SCT")) from a log not in the list") }
            let uncounted = scts.filter { $0.check == .valid && !stateCounts($0) }.count
            if uncounted > 0 { parts.append("\(count(uncounted, "SCT")) from a log whose state does not count") }
        }
        if !compliant {
            parts.append(
                "Chrome's policy, which Android applies, wants \(embeddedNeeded) embedded for this "
                    + "\(Int((lifetime / 86_400).rounded()))-day leaf or 2 in the handshake, from 2 operators")
        }
        return CTCompliance(compliant: compliant, sentence: parts.joined(separator: "; "))
    }

    private static func stateCounts(_ sct: ObservedSCT) -> Bool {
        guard let state = sct.logState?.lowercased() else { return true }
        return countingStates.contains(state) || (state == "retired" && sct.delivery == .embedded)
    }

    private static func isRetired(_ sct: ObservedSCT) -> Bool { sct.logState?.lowercased() == "retired" }

    private static func operators(of scts: [ObservedSCT]) -> Int {
        Set(scts.map { $0.logOperator ?? $0.logID.map { String($0, radix: 16) }.joined() }).count
    }

    private static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }
}
