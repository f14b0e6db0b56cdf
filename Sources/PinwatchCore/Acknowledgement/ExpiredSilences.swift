import Foundation

/// `validate` and `lint`: a `silence:` whose date has passed does nothing
/// any more, and is better removed than left to mislead a reader.
public enum ExpiredSilences {
    /// `file:line: host a.test:443: silence.until 2026-01-01 00:00 UTC has passed (…)`, one per host.
    public static func warnings(_ config: Config, now: Date) -> [String] {
        config.hosts.compactMap { host in
            guard let silence = host.silence, silence.until <= now else { return nil }
            let place = config.path.map { host.line > 0 ? "\($0):\(host.line): " : "\($0): " } ?? ""
            return TerminalText.sanitize(
                "\(place)host \(host.displayName): silence.until \(DateText.readableUTC(silence.until)) has passed; "
                    + "the silence no longer applies (remove it)")
        }
    }
}
