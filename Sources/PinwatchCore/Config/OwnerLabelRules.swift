import Foundation

/// What `labels:` and `runbook:` may hold. The labels become Prometheus
/// label names on `pinwatch_host_labels`, so a name must be one Prometheus
/// accepts and must not collide with a label pinwatch already puts on a
/// host's series (a PromQL join would then mix the two meanings).
public enum OwnerLabelRules {
    /// Labels per host or pin set: owners and environments, not an inventory.
    public static let maximumLabels = 16
    /// Characters in a label value: a team or environment name, not a document.
    public static let maximumValueLength = 128
    /// Characters in a runbook URL.
    public static let maximumRunbookLength = 2_048

    /// Labels pinwatch puts on host series itself, and Prometheus's target labels.
    public static let reservedNames: Set<String> = [
        "host", "port", "sni", "address", "vantage", "runbook", "job", "instance", "status", "severity", "headline",
        "tiers", "reason", "alert", "level", "role", "tier", "spki_sha256", "subject", "scenario", "kind", "version",
    ]

    /// Why `name` cannot be a label name, or nil.
    public static func nameProblem(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return "a label name cannot be empty" }
        let isLetter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" }
        let isDigit: (Unicode.Scalar) -> Bool = { ("0"..."9").contains($0) }
        guard isLetter(first), name.unicodeScalars.allSatisfy({ isLetter($0) || isDigit($0) }) else {
            return "\(EchoedInput.quoted(name)) is not a Prometheus label name (a letter or _, then letters, digits and _)"
        }
        if name.hasPrefix("__") {
            return "\(EchoedInput.quoted(name)): names starting with __ are reserved for Prometheus's own use"
        }
        if reservedNames.contains(name) {
            return "\(name) is a label pinwatch sets itself (reserved: \(reservedNames.sorted().joined(separator: ", ")))"
        }
        return nil
    }

    /// Why `value` cannot be a label value, or nil.
    public static func valueProblem(_ value: String) -> String? {
        if value.count > maximumValueLength {
            return "a label value is at most \(maximumValueLength) characters (this one has \(value.count))"
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "\(EchoedInput.quoted(value)) holds a control character"
        }
        return nil
    }

    /// Why `text` is not a runbook link (an absolute http or https URL), or nil.
    public static func runbookProblem(_ text: String) -> String? {
        if text.count > maximumRunbookLength {
            return "a runbook URL is at most \(maximumRunbookLength) characters (this one has \(text.count))"
        }
        let isSpaceOrControl: (Unicode.Scalar) -> Bool = {
            $0.properties.isWhitespace || $0.properties.generalCategory == .control
        }
        guard !text.unicodeScalars.contains(where: isSpaceOrControl),
            let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else {
            return "\(EchoedInput.quoted(text)) is not an http(s) URL (e.g. https://wiki.example.com/runbooks/api)"
        }
        return nil
    }
}
