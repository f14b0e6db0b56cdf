import Foundation
import PinwatchCore

/// Row order: the sort column's value per host, compared with
/// configuration order as the tie-breaker whichever way it runs.
extension DashboardState {
    /// What a host is sorted by; a host without one (still waiting, or no
    /// status change seen yet) goes after every host with one.
    enum SortValue: Comparable {
        case number(Double)
        case text(String)
    }

    func sortedRows(_ matching: [Int]) -> [Int] {
        guard sortOrder != .configuration else { return sortReversed ? matching.reversed() : matching }
        // Worked out once per host, not once per comparison.
        var values = [SortValue?](repeating: nil, count: hosts.count)
        for index in matching { values[index] = sortValue(of: index) }
        let reversed = sortReversed
        return matching.sorted { left, right in
            switch (values[left], values[right]) {
            case (nil, nil): return left < right
            case (nil, _): return false
            case (_, nil): return true
            case (let leftValue?, let rightValue?):
                if leftValue == rightValue { return left < right }
                return reversed ? rightValue < leftValue : leftValue < rightValue
            }
        }
    }

    private func sortValue(of index: Int) -> SortValue? {
        if sortOrder == .since {
            return statusSince[index].map { .number(-$0.timeIntervalSince1970) }
        }
        guard let report = reports[index] else { return nil }
        switch sortOrder {
        case .configuration, .since: return nil
        case .worstFirst: return .number(-Double(report.severity.rank))
        case .host: return .text(hosts[index].displayName.lowercased())
        case .chain:
            // Alike chains side by side: the row's roles and match symbols.
            let pins = hosts[index].pins
            return .text(
                report.levels.map { Formatting.roleLetter($0.role) + Formatting.matchSymbol($0, pins: pins, series: report.series) }.joined(
                    separator: " "))
        case .tier:
            // What a renewal leaves matching, least first: no pin matched,
            // then the leaf alone (breaks at the next renewal), then a CA
            // pin (with or without the leaf's). Within a tier, the worse
            // severity first: a blocked host before an unpinned one.
            let tier: Int
            switch (report.matchedTiers.contains(.ca), report.matchedTiers.contains(.leaf)) {
            case (false, false): tier = 0
            case (false, true): tier = 1
            case (true, _): tier = 2
            }
            return .number(Double(tier * 10 - report.severity.rank))
        case .days: return .number(report.earliestExpiry.map { Double($0.daysLeft) } ?? .infinity)
        case .proxy: return .number(report.proxy.intercepted ? 0 : report.proxy.detected ? 1 : 2)
        case .age: return .number(report.result.finishedAt.timeIntervalSince1970)
        case .reason: return .text(report.reason.lowercased())
        }
    }

    /// `worst first`, `by days`, `by days, reversed`: the header's and
    /// footer's words for the order the rows are in.
    package var sortDescription: String {
        let base: String
        switch sortOrder {
        case .worstFirst: base = sortReversed ? "best first" : "worst first"
        case .configuration: base = sortReversed ? "config order, reversed" : "config order"
        default: base = "by \(sortOrder.rawValue)" + (sortReversed ? ", reversed" : "")
        }
        return base
    }

    /// `<` and `>`: the sort column one step left or right, stopping at
    /// either end as htop does.
    mutating func moveSortColumn(by step: Int) {
        let order = SortOrder.columnOrder
        let current = order.firstIndex(of: sortOrder) ?? 0
        sortOrder = order[min(order.count - 1, max(0, current + step))]
        keepSelectionVisible()
    }
}
