import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The header says the CA data's date, and marks it when it is stale, so a
/// next-chain verdict on old data does not pass as current.
final class CatalogueHeaderTests: XCTestCase {
    private func statusLine(note: String?, stale: Bool) -> StyledLine {
        var state = DashboardState(configPath: "c.yaml", hosts: [], timeZone: Fixture.utc)
        state.catalogueNote = note
        state.catalogueStale = stale
        return HeaderLayout.statusLine(for: state, now: Fixture.now)
    }

    func testTheDataDateIsShownDimAndAStaleOneAsAWarning() throws {
        let current = statusLine(note: "CA data 2026-08-21", stale: false)
        let span = try XCTUnwrap(current.first { $0.text == "CA data 2026-08-21" })
        XCTAssertEqual(span.style, Style(.dim))
        let stale = statusLine(note: "CA data 2026-01-02 (stale)", stale: true)
        XCTAssertEqual(stale.first { $0.text.hasPrefix("CA data") }?.style, Style(.warn))
        XCTAssertNil(statusLine(note: nil, stale: false).first { $0.text.hasPrefix("CA data") })
    }

    func testTheSummaryIsTheOldestPublicFamilysDate() {
        let day: TimeInterval = 86_400
        var old = CatalogueFamily(name: "a", displayName: "A", roots: [], intermediates: [], origin: "built-in")
        old.dataDate = Fixture.now.addingTimeInterval(-200 * day)
        var fresh = CatalogueFamily(name: "b", displayName: "B", roots: [], intermediates: [], origin: "user")
        fresh.dataDate = Fixture.now.addingTimeInterval(-10 * day)
        let mine = CatalogueFamily(name: "corp", displayName: "Corp", roots: [], intermediates: [], origin: "config")
        let summary = CatalogueListing.dataSummary(Catalogue(families: [fresh, old, mine]), now: Fixture.now)
        XCTAssertEqual(summary, "CA data \(DateText.day(old.dataDate!)) (stale)")
        XCTAssertEqual(
            CatalogueListing.dataSummary(Catalogue(families: [fresh, mine]), now: Fixture.now), "CA data \(DateText.day(fresh.dataDate!))")
    }
}
