import Foundation

/// The sentences for the next-chain warnings: the odds and the pin to add.
enum NextChainReasons {
    static func warning(alerts: Set<HostAlert>, nextChains: NextChains, levels: [LevelReport]) -> HostAssessment? {
        let fix = fixText(nextChains.recommended)
        if alerts.contains(.intermediatePool) {
            let poolChains = nextChains.chains(.leafRenewal) + nextChains.chains(.intermediateRotation)
            let broken = poolChains.filter { $0.survives == false }.count
            let matched = matchedIntermediates(levels)
            // The words follow what matched: a root pin that misses part of
            // the pool (an intermediate under another root) is not "only
            // the intermediate".
            let roots = levels.dropFirst().filter { $0.role == .root && !$0.matches.isEmpty }.map {
                CertificateName.short($0.certificate.facts.subject)
            }
            let pinned =
                !roots.isEmpty
                ? "the root pin (\(roots.joined(separator: ", "))) does not cover every intermediate of the pool"
                : matched.isEmpty
                    ? "the CA pins match only the intermediate"
                    : "only the intermediate pin (\(matched.joined(separator: ", "))) matches"
            let issuer = nextChains.family ?? "the CA"
            return HostAssessment(
                severity: .warning,
                reason:
                    "\(pinned); \(issuer) issues from \(poolText(nextChains.pool)): \(broken) of \(poolChains.count) next chains break pinned clients\(fix)",
                headline: .intermediatePool)
        }
        if alerts.contains(.rootTransition) {
            let uncovered = nextChains.chains(.rootTransition).filter { $0.survives == false }
            let what = uncovered.map { chain in
                chain.from.map { "\(chain.via) (from \(DateText.day($0)))" } ?? chain.via
            }
            return HostAssessment(
                severity: .warning,
                reason:
                    "no pin covers \(nextChains.family ?? "the CA")'s announced \(what.joined(separator: ", ")): chains under it break pinned clients\(fix)",
                headline: .rootTransition)
        }
        if alerts.contains(.caSwitch) {
            let uncovered = nextChains.chains(.caSwitch).filter { $0.survives == false }.map(\.via)
            return HostAssessment(
                severity: .warning,
                reason:
                    "\(nextChains.provider ?? "the provider") may issue the next certificate from \(uncovered.joined(separator: ", ")), which no pin covers\(fix)",
                headline: .caSwitch)
        }
        return nil
    }

    /// CA pins match, but only at intermediate levels (no root).
    static func matchesOnlyIntermediates(_ levels: [LevelReport]) -> Bool {
        let caMatched = levels.dropFirst().filter { !$0.matches.isEmpty }
        return !caMatched.isEmpty && caMatched.allSatisfy { $0.role == .intermediate }
    }

    private static func matchedIntermediates(_ levels: [LevelReport]) -> [String] {
        levels.dropFirst().filter { $0.role == .intermediate && !$0.matches.isEmpty }.map {
            HistoryTimeline.commonName($0.certificate.facts.subject)
        }
    }

    private static func fixText(_ recommended: [RecommendedPin]) -> String {
        recommended.isEmpty ? "" : "; add " + recommended.map(\.shortText).joined(separator: " and ")
    }

    /// `R10–R14` when the names count up in one series, else a list.
    static func poolText(_ names: [String]) -> String {
        let sorted = names.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
        guard let first = sorted.first, let last = sorted.last, sorted.count > 2 else {
            return sorted.joined(separator: ", ")
        }
        let split = sorted.map(seriesParts)
        let prefixes = Set(split.map(\.prefix))
        let numbers = split.compactMap(\.number)
        let consecutive =
            prefixes.count == 1 && numbers.count == sorted.count && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 + 1 }
        return consecutive ? "\(first)–\(last)" : sorted.joined(separator: ", ")
    }

    private static func seriesParts(_ name: String) -> (prefix: String, number: Int?) {
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        return (String(name.dropLast(digits.count)), Int(String(digits.reversed())))
    }
}
