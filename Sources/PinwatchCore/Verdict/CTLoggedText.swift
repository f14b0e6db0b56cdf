import Foundation

/// The words for a certificate Certificate Transparency logged for a host:
/// the `next_leaf_logged` reason, and the lines the detail view and
/// `pinwatch ct` list.
public enum CTLoggedText {
    /// `a new certificate was logged at 2026-12-06 10:02 UTC in Log A under
    /// CN=YR2: android-5.2 has no pin on its chain and will refuse it once
    /// it is deployed`; critical once its validity has begun.
    public static func sentence(_ logged: CTLoggedCertificate, now: Date) -> String {
        let kind = logged.precertificate ? "precertificate" : "certificate"
        let releases = logged.verdict.breaks.joined(separator: ", ")
        let verb = logged.verdict.breaks.count == 1 ? "has" : "have"
        var text =
            "a new \(kind) was logged at \(DateText.readableUTC(logged.loggedAt)) in \(logged.log) under \(logged.issuer): "
            + "\(releases) \(verb) no pin on its chain and will refuse it once it is deployed"
        if logged.notBefore <= now {
            text += " (valid since \(DateText.readableUTC(logged.notBefore)): it may be deployed any time)"
        }
        return text
    }

    /// `survives android-6.0; breaks android-5.2`, or `no release pins this name`.
    public static func verdict(_ logged: CTLoggedCertificate) -> String {
        var parts: [String] = []
        if !logged.verdict.survives.isEmpty { parts.append("survives " + logged.verdict.survives.joined(separator: ", ")) }
        if !logged.verdict.breaks.isEmpty { parts.append("breaks " + logged.verdict.breaks.joined(separator: ", ")) }
        return parts.isEmpty ? "no release pins this name" : parts.joined(separator: "; ")
    }
}
