import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// `TableColumn.all` is the one list of the host table's columns: README's
/// table of columns is held to it, each sort order names one column, and a
/// narrowing screen gives columns up in their drop ranks' order.
final class TableColumnTests: XCTestCase {
    private let titles = TableColumn.all.map(\.title)

    func testTitlesDropRanksAndSortOrdersAreDistinctAndEverySortOrderHasItsColumn() {
        XCTAssertEqual(Set(titles).count, titles.count, "two columns share a title: \(titles)")
        let ranks = TableColumn.all.compactMap(\.dropRank)
        XCTAssertEqual(Set(ranks).count, ranks.count, "two columns share a drop rank: \(ranks)")
        let orders = TableColumn.all.map(\.sortOrder)
        XCTAssertEqual(Set(orders).count, orders.count, "two columns sort by one order")
        XCTAssertEqual(Set(SortOrder.allCases), Set(orders + [.configuration]), "a sort order without its column, or the reverse")
        for column in TableColumn.all {
            XCTAssertEqual(TableColumn.sorting(column.sortOrder)?.title, column.title)
        }
        XCTAssertNil(TableColumn.sorting(.configuration))
    }

    func testTheWidestLayoutShowsEveryColumnInTheTablesOrder() throws {
        XCTAssertEqual(TableLayout.columns(width: 400, chainLevels: 3, labelWidth: 40).map(\.0.title), titles)
        // And on a screen: the header of a wide dashboard names them all, left to right.
        let lines = Fixture.lines(DashboardLayout.frame(for: Fixture.mixedState(), width: 200, height: 24, now: Fixture.now))
        let header = try XCTUnwrap(lines.first { $0.hasPrefix(" status▼ ") })
        XCTAssertEqual(header.split(separator: " ").map { $0.replacingOccurrences(of: "▼", with: "") }, titles, header)
    }

    /// As the screen narrows, the columns with a drop rank leave lowest
    /// rank first (what has left is always the start of `dropOrder`), the
    /// others stay, and the host column keeps its least width while
    /// there is a column left to give up.
    func testANarrowingScreenDropsColumnsLowestRankFirst() {
        let droppable = TableColumn.all.compactMap { column in column.dropRank.map { ($0, column.title) } }.sorted { $0.0 < $1.0 }
            .map(\.1)
        XCTAssertEqual(TableLayout.dropOrder.map(\.title), droppable)
        var droppedBefore = 0
        for width in stride(from: 200, through: 20, by: -1) {
            let columns = TableLayout.columns(width: width, chainLevels: 3, labelWidth: 30)
            let shown = columns.map(\.0.title)
            let dropped = droppable.filter { !shown.contains($0) }
            XCTAssertEqual(dropped, Array(droppable.prefix(dropped.count)), "width \(width): \(shown)")
            XCTAssertGreaterThanOrEqual(dropped.count, droppedBefore, "width \(width) shows a column a wider screen dropped")
            droppedBefore = dropped.count
            for title in titles where !droppable.contains(title) && title != TableColumn.sorting(.reason)?.title {
                XCTAssertTrue(shown.contains(title), "width \(width) dropped \(title)")
            }
            let host = columns.first { $0.0 == TableColumn.sorting(.host) }?.1 ?? 0
            if dropped.count < droppable.count {
                XCTAssertGreaterThanOrEqual(host, 12, "width \(width): \(columns.map { "\($0.0.title) \($0.1)" })")
            }
            if host >= 12 {
                XCTAssertEqual(columns.reduce(0) { $0 + $1.1 + 1 }, width, "width \(width): the margin and columns fill the line")
            }
        }
        XCTAssertEqual(droppedBefore, droppable.count, "the narrowest screen has given up every column it may")
    }

    /// README's "The dashboard" lists the columns in a table: their titles
    /// left to right, and on a narrow screen which are kept, the order the
    /// others are dropped in, and the one shown only when there is room.
    func testReadmesTableOfColumnsIsTheColumnTable() throws {
        let rows = try Self.readmeColumnRows()
        XCTAssertEqual(rows.map(\.title), titles, "README's columns, left to right")
        for row in rows {
            let column = try XCTUnwrap(TableColumn.all.first { $0.title == row.title })
            switch row.narrow {
            case "kept":
                XCTAssertNil(column.dropRank, row.title)
                if case .leftover = column.width { XCTFail("\(row.title) is shown only when there is room") }
            case let text where text.hasPrefix("dropped "):
                let ordinal = try XCTUnwrap(Int(text.dropFirst("dropped ".count).prefix { $0.isNumber }), text)
                XCTAssertEqual(TableLayout.dropOrder.firstIndex(of: column).map { $0 + 1 }, ordinal, "\(row.title): \(text)")
            case let text where text.hasPrefix("shown only when"):
                guard case .leftover(let least) = column.width else { return XCTFail("\(row.title) is not the leftover column") }
                XCTAssertTrue(text.contains("\(least) cells"), text)
            default:
                XCTFail("README's \(row.title) row says \(row.narrow)")
            }
        }
    }

    /// The rows of the table under `| column | what it shows |`: each
    /// title's code span and the last cell, what a narrow screen does.
    static func readmeColumnRows() throws -> [(title: String, narrow: String)] {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let lines = try String(contentsOf: readme, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let header = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("| column | what it shows |") }, "README has a table of columns")
        var rows: [(String, String)] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows.append((cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells.last ?? ""))
        }
        return rows
    }
}
