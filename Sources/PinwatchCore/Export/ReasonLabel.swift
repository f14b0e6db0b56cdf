import Foundation

/// The reason as `pinwatch_host_reason_info`'s `reason` label carries it.
///
/// A label value that changes starts a new series: a count of days left
/// ("expires in 9 days", "breaks in ~40 days") would start one per host
/// every day. Here each count becomes the day it counts to, so the series
/// changes when the verdict does; alert rules and dashboards rebuild the
/// count from `pinwatch_chain_not_after_timestamp_seconds` when they
/// want one. Every other output keeps the counted sentence.
enum ReasonLabel {
    static func text(_ report: HostReport) -> String {
        var text = report.reason
        if let expiry = report.earliestExpiry {
            text = text.replacingOccurrences(of: expiry.tense, with: expiry.datedTense)
        }
        if let renewal = report.history?.renewal {
            text = text.replacing(renewalCount, with: "breaks ~" + DateText.day(renewal.date))
        }
        if report.headline == .renewalOverdue, let leaf = report.levels.first(where: { $0.role == .leaf }) {
            // The share used grows every day as the days left shrink.
            text = text.replacing(shareUsed, with: "is past renew_share of")
            text = text.replacing(daysLeft, with: "(expires " + DateText.day(leaf.certificate.facts.notAfter) + ")")
        }
        return text
    }

    /// The leaf-only sentence's estimate of the next renewal (`Verdict.assess`).
    nonisolated(unsafe) private static let renewalCount = try! Regex("breaks in ~[0-9]+ days?")
    /// The renewal-overdue sentence's counts (`Severity`'s renewal sentence).
    nonisolated(unsafe) private static let shareUsed = try! Regex("has used [0-9]+% of")
    nonisolated(unsafe) private static let daysLeft = try! Regex("\\([0-9]+ days? left\\)")
}
