import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The `/` prompt's negation (`!unpinned`) and regular expressions
/// (`/api-.*`), and a bad regex that leaves the previous filter in force.
final class FilterSyntaxTests: XCTestCase {
    private func filtered(_ state: inout DashboardState, _ text: String) -> [String] {
        state.filter = text
        return state.visibleHostIndices.map { state.hosts[$0].host }
    }

    func testNegationKeepsEveryHostTheRestWouldNot() {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        XCTAssertEqual(filtered(&state, "unpinned"), ["echo.example"], "a whole status word finds its hosts")
        XCTAssertEqual(
            filtered(&state, "!unpinned"), ["alpha.example", "bravo.example", "charlie.example", "delta.example", "foxtrot.example"])
        XCTAssertEqual(
            filtered(&state, "!status:critical"), ["alpha.example", "bravo.example", "delta.example", "echo.example", "foxtrot.example"])
        XCTAssertEqual(
            filtered(&state, "!ar"), ["alpha.example", "bravo.example", "delta.example", "echo.example", "foxtrot.example"],
            "names without “ar”")
        XCTAssertEqual(filtered(&state, "!").count, 6, "a bare ! negates nothing yet: every host")
    }

    func testRegexMatchesNamesAndNegates() {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        XCTAssertEqual(filtered(&state, "/^(alpha|echo)\\."), ["alpha.example", "echo.example"])
        XCTAssertEqual(filtered(&state, "/CHARLIE"), ["charlie.example"], "case does not matter, as in the plain filter")
        XCTAssertEqual(filtered(&state, "!/^[a-c]"), ["delta.example", "echo.example", "foxtrot.example"])
        XCTAssertEqual(filtered(&state, "/").count, 6, "an empty pattern, while typing, keeps every host")
        XCTAssertNil(state.filterProblem)
    }

    func testABadRegexSaysSoInTheFooterAndKeepsThePreviousFilter() {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        _ = state.handle(.character("/"))
        for character in "/^b" { _ = state.handle(.character(character)) }
        XCTAssertEqual(state.visibleHostIndices, [1])
        _ = state.handle(.character("("))
        XCTAssertEqual(state.visibleHostIndices, [1], "the unfinished group leaves ^b in force")
        let problem = try? XCTUnwrap(state.filterProblem)
        XCTAssertTrue(problem?.contains("bad regex “^b(”") == true, problem ?? "no problem said")
        let footer = Fixture.lines(DashboardLayout.frame(for: state, width: 100, height: 24, now: Fixture.now)).suffix(3).joined(
            separator: "\n")
        XCTAssertTrue(footer.contains("filter: bad regex “^b(”: the previous filter stays"), footer)
        _ = state.handle(.character(")"))
        XCTAssertNil(state.filterProblem, "closed again, the regex is the filter")
        XCTAssertEqual(state.visibleHostIndices, [1])
        state.filter = "/" + String(repeating: "a", count: HostFilter.maximumPatternLength + 1)
        XCTAssertEqual(state.filterProblem, "regex longer than \(HostFilter.maximumPatternLength) characters: the previous filter stays")
        XCTAssertEqual(state.visibleHostIndices, [1])
        _ = state.handle(.escape)
        XCTAssertNil(state.filterProblem, "Esc clears the filter and its complaint")
        XCTAssertEqual(state.visibleHostIndices.count, 6)
    }
}

/// The README's regular expression, typed key by key from the table as a
/// reader would: the `/` that opens the filter is not part of it.
final class FilterExampleInReadmeTests: XCTestCase {
    func testTheReadmesRegexExampleTypedFromTheTableIsARegex() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8).replacingOccurrences(of: "\n", with: " ")
        let sentence = try XCTUnwrap(text.range(of: "is a regular expression (type `"), "README explains the regex filter's keys")
        let example = String(text[sentence.upperBound...].prefix { $0 != "`" })
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        for character in example.replacingOccurrences(of: "api-", with: "^(alpha|echo)\\") {
            _ = state.handle(.character(character))
        }
        XCTAssertTrue(state.isEditingFilter)
        XCTAssertNil(state.filterProblem)
        XCTAssertEqual(state.visibleHostIndices.map { state.hosts[$0].host }, ["alpha.example", "echo.example"], example)
    }
}
