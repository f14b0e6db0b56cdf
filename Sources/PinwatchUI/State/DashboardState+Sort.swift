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
        guard let column = TableColumn.sorting(sortOrder) else { return sortReversed ? matching.reversed() : matching }
        // Worked out once per host, not once per comparison.
        var values = [SortValue?](repeating: nil, count: hosts.count)
        for index in matching { values[index] = column.sortValue(self, index) }
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

    /// `worst first`, `by days`, `by days, reversed`: the header's and
    /// footer's words for the order the rows are in.
    package var sortDescription: String {
        guard let column = TableColumn.sorting(sortOrder) else { return sortReversed ? "config order, reversed" : "config order" }
        if let words = column.orderWords { return sortReversed ? words.reversed : words.forward }
        return "by \(column.title)" + (sortReversed ? ", reversed" : "")
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
