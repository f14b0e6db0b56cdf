import Foundation
import PinwatchCore

/// What the `/` prompt's text keeps: `api` (part of a name or SNI, or a
/// whole status word such as `unpinned`), `status:blocked` (a headline or
/// severity, by prefix), `/api-.*` (a regular expression on names and SNI),
/// each turned round by a leading `!`.
struct HostFilter: @unchecked Sendable {
    // @unchecked: NSRegularExpression is immutable once compiled, and Apple
    // documents it as safe to share between threads.

    /// Longer patterns are refused: a regex runs on every host at every
    /// key press, and no host name needs more.
    static let maximumPatternLength = 200

    enum Test {
        case everything
        case text(String)
        case status(String)
        case regex(NSRegularExpression)
    }

    var test: Test = .everything
    var negated = false

    /// Why a filter's text cannot be used, said in the footer.
    struct Problem: Error, Equatable {
        var message: String
    }

    static func parse(_ text: String) -> Result<HostFilter, Problem> {
        var body = Substring(text.trimmingCharacters(in: .whitespaces))
        var filter = HostFilter()
        if body.hasPrefix("!") {
            filter.negated = true
            body = body.dropFirst()
        }
        if body.hasPrefix("/") {
            let pattern = String(body.dropFirst())
            guard pattern.count <= maximumPatternLength else {
                return .failure(Problem(message: "regex longer than \(maximumPatternLength) characters"))
            }
            guard !pattern.isEmpty else { return .success(filter) }
            do {
                filter.test = .regex(try NSRegularExpression(pattern: pattern, options: [.caseInsensitive]))
            } catch {
                return .failure(Problem(message: "bad regex “\(pattern)”"))
            }
        } else if body.lowercased().hasPrefix("status:") {
            filter.test = .status(body.dropFirst("status:".count).lowercased().replacingOccurrences(of: "-", with: "_"))
        } else if !body.isEmpty {
            filter.test = .text(body.lowercased())
        }
        return .success(filter)
    }

    /// The part of a name this filter looks for, when it looks for nothing
    /// else: plain text, not turned round, not a word `matches` also takes
    /// as a status (those are the reports', not the names').
    var nameText: String? {
        guard case .text(let needle) = test, !negated else { return nil }
        let statusWord = HostHeadline(rawValue: needle) != nil || HostSeverity(rawValue: needle) != nil || needle == "waiting"
        return statusWord ? nil : needle
    }

    /// Whether the host `host`, with its latest report (nil while waiting), is kept.
    /// A bare `!` (or `!/`) negates nothing yet: every host stays while
    /// the rest is typed.
    func keeps(_ host: HostConfig, report: HostReport?) -> Bool {
        if case .everything = test { return true }
        return matches(host, report: report) != negated
    }

    private func matches(_ host: HostConfig, report: HostReport?) -> Bool {
        switch test {
        case .everything:
            return true
        case .status(let wanted):
            guard let report else { return wanted.isEmpty || "waiting".hasPrefix(wanted) }
            return report.headline.rawValue.hasPrefix(wanted) || report.severity.rawValue.hasPrefix(wanted)
        case .text(let needle):
            if host.displayName.lowercased().contains(needle) || host.serverName.lowercased().contains(needle) { return true }
            guard let report else { return needle == "waiting" }
            return report.headline.rawValue == needle || report.severity.rawValue == needle
        case .regex(let expression):
            return [host.displayName, host.serverName].contains { name in
                expression.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
            }
        }
    }
}
