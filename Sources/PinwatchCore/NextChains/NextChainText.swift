/// The plain-text forms of next chains that `check --client`, `lint`,
/// `inspect` and the screens share.
public enum NextChainText {
    /// `inspect`'s and `preflight`'s section: one line per next chain and
    /// the pins to add; empty where the host has no next chains.
    /// - Parameter judging: whose pins the lines judge (`pin set api`,
    /// `client app 2.0`), said in the heading where several are shown.
    public static func section(of report: HostReport, judging: String? = nil) -> String {
        guard let nextChains = report.nextChains else { return "" }
        let family = TerminalText.sanitize(nextChains.family ?? "CA not in the catalogue")
        let whose = judging.map { " for \(TerminalText.sanitize($0))" } ?? ""
        var out = "\nnext chains\(whose) (\(family)):\n"
        for chain in nextChains.chains { out += "  \(line(chain))\n" }
        if nextChains.untrusted { out += "  recommended: \(NextChains.fixTrustFirst)\n" }
        for pin in nextChains.recommended { out += "  recommended: \(recommendation(pin))\n" }
        return out
    }

    /// ✓ survives, ✗ breaks, ? unknown.
    public static func symbol(_ survives: Bool?) -> String {
        survives.map { $0 ? "✓" : "✗" } ?? "?"
    }

    /// `leaf renewal ✓, intermediate rotation ✗, root transition ✓, CA switch ?`.
    public static func survival(_ nextChains: NextChains) -> String {
        NextChainScenario.allCases.map { "\($0.change) \(symbol(nextChains.survives($0)))" }.joined(separator: ", ")
    }

    /// One line per chain: what changes, through what, whether it
    /// survives, and the pin that carries it.
    public static func line(_ chain: NextChain) -> String {
        var text = "\(chain.scenario.change) via \(chain.via)"
        if let from = chain.from { text += " (from \(DateText.day(from)))" }
        text += ": " + symbol(chain.survives)
        if let pin = chain.carriedBy.first {
            text += " carried by \(pin.text)" + (chain.carriedBy.count > 1 ? " (+\(chain.carriedBy.count - 1))" : "")
        }
        if let reason = chain.reason {
            text += (chain.survives == nil ? " " : "; ") + reason
        } else if chain.survives == nil {
            text += " the catalogue does not know this CA"
        }
        return TerminalText.sanitize(text)
    }

    /// `sha256/…   # ISRG Root X1`, paste-ready: printable ASCII only,
    /// like every comment pinwatch writes for a file.
    public static func recommendation(_ pin: RecommendedPin) -> String {
        "\(TerminalText.sanitize(pin.pin))   # \(FileText.comment(pin.subject))"
    }

    /// Whether a scenario the pins should survive breaks while the leaf
    /// renewal survives (a leaf-only set is told so on its own).
    public static func breaksBeyondRenewal(_ nextChains: NextChains) -> Bool {
        nextChains.survives(.leafRenewal) == true && nextChains.chains.contains { $0.survives == false }
    }
}
