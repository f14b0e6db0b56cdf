import Foundation
import PinwatchCore

/// Small text helpers shared by the table, the banner and the detail view.
package enum Formatting {
    /// `42s`, `5m`, `3h`, `12d`: an age that fits five cells. Total: an
    /// age from another machine's clock may be anything a Double holds.
    package static func duration(_ seconds: TimeInterval) -> String {
        let value = max(0, WholeNumber.clamped(seconds))
        if value < 60 { return "\(value)s" }
        if value < 3600 { return "\(value / 60)m" }
        if value < 86400 { return "\(value / 3600)h" }
        return "\(value / 86400)d"
    }

    /// `2026-11-23 07:31 UTC`: a moment a reader elsewhere can place.
    static func dateAndZone(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let zone = zoneName(timeZone, at: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d %@", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0,
            zone)
    }

    /// `14:03:07 CET` in the dashboard's time zone, named: over ssh the
    /// server's zone is rarely the on-call's, and other times are UTC.
    package static func clock(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute, .second], from: date)
        let zone = zoneName(timeZone, at: date)
        return String(format: "%02d:%02d:%02d %@", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, zone)
    }

    /// The zone as a reader knows it: `CET`, `GMT+9`, and `UTC` (not the
    /// `GMT` Foundation calls it) for `--utc` and a machine set to UTC.
    static func zoneName(_ timeZone: TimeZone, at date: Date) -> String {
        if ["UTC", "Etc/UTC", "Etc/Universal", "Universal", "Zulu", "Etc/Zulu", "GMT", "Etc/GMT"].contains(timeZone.identifier) {
            return "UTC"
        }
        return timeZone.abbreviation(for: date) ?? timeZone.identifier
    }

    /// `CA`, `CA+leaf`, `leaf` or `—`.
    static func tiers(_ tiers: [PinTier]) -> String {
        switch (tiers.contains(.ca), tiers.contains(.leaf)) {
        case (true, true): return "CA+leaf"
        case (true, false): return "CA"
        case (false, true): return "leaf"
        case (false, false): return "—"
        }
    }

    static func daysStyle(_ days: Int, warnDays: Int, criticalDays: Int) -> Style {
        if days <= criticalDays { return Style(.critical) }
        if days <= warnDays { return Style(.warn) }
        return Style(.ok)
    }

    static func roleStyle(_ role: ChainRole) -> Style {
        switch role {
        case .leaf: return Style(.leaf)
        case .intermediate: return Style(.intermediate)
        case .root: return Style(.root)
        }
    }

    /// Status word with its symbol, so meaning never rests on colour alone.
    static func status(_ status: HostStatus?) -> Span {
        switch status {
        case .ok: return Span("✓ ok", Style(.ok))
        case .leafOnly: return Span("⚠ leaf_only", Style(.warn, bold: true))
        case .blocked: return Span("✗ blocked", Style(.critical, bold: true))
        case .error: return Span("! error", Style(.error))
        case .unpinned: return Span("○ unpinned", Style(.dim))
        case nil: return Span("… waiting", Style(.dim))
        }
    }

    /// The table's status cell: the host's headline (the word the header
    /// counts and `/status:` finds), in the symbol and colour of its
    /// severity, so a leaf 4 days from expiry on an `ok` host reads
    /// "✗ expiring", never "✓ ok".
    static func status(of report: HostReport?) -> Span {
        guard let report else { return status(nil) }
        return headline(report.headline, severity: report.severity)
    }

    /// A headline in the symbol and colour of `severity`; without one (the
    /// header's count of no host), the symbol it usually carries.
    static func headline(_ headline: HostHeadline, severity: HostSeverity?) -> Span {
        Span("\(headline.symbol(at: severity)) \(headline.rawValue)", headlineStyle(headline, severity: severity))
    }

    private static func headlineStyle(_ headline: HostHeadline, severity: HostSeverity?) -> Style {
        switch severity {
        case .critical: return Style(.critical, bold: true)
        case .warning: return Style(.warn, bold: true)
        case .unknown: return Style(.error)
        case .ok, nil: break
        }
        switch headline {
        case .ok: return Style(.ok)
        case .unpinned: return Style(.dim)
        case .error: return Style(.error)
        case .blocked, .ctNoncompliant, .expired, .intercepted, .revoked: return Style(.critical, bold: true)
        case .leafOnly, .expiring, .chainChanged, .pinsExpiring, .pinsExpired, .intermediatePool, .rootTransition, .caSwitch,
            .renewalOverdue, .crlUnavailable, .crlStale, .clientReports, .nextLeafLogged, .ctLogMisbehaving:
            return Style(.warn, bold: true)
        }
    }

    /// ✓ matched, ✗ not matched, · no pins of the tier that applies to this
    /// level: in the host's pins, or for a row from another instance's
    /// series, in whether they export a pin match for the level.
    static func matchSymbol(_ level: LevelReport, pins: PinSet, series: SeriesFacts? = nil) -> String {
        if !level.matches.isEmpty { return "✓" }
        if let series { return series.pinnedLevels.contains(level.level) ? "✗" : "·" }
        let relevant = level.role == .leaf ? pins.leaf : pins.ca
        return relevant.isEmpty ? "·" : "✗"
    }

    static func roleLetter(_ role: ChainRole) -> String {
        switch role {
        case .leaf: return "L"
        case .intermediate: return "I"
        case .root: return "R"
        }
    }
}
