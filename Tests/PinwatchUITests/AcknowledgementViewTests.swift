import PinwatchCore
import XCTest

@testable import PinwatchUI

/// An acknowledged host on the dashboard (DESIGN §14): dimmed and marked in
/// every theme and picture, out of the banner, the severity counts and the
/// bell; and `a`'s footer prompt.
final class AcknowledgementViewTests: XCTestCase {
    private let bravo = 1  // leaf_only in the mixed state

    private func acknowledging(_ state: inout DashboardState, host index: Int) {
        guard let report = state.reports[index] else { return XCTFail("no report") }
        var book = AcknowledgementBook(stored: [
            Acknowledgement(
                hostIdentity: report.config.identityKey, until: Fixture.now + 86_400, reason: "app 5.2 ships Friday", by: "ana",
                at: Fixture.now, source: .dashboard, state: AcknowledgedState(of: report))
        ])
        XCTAssertFalse(state.record(book.apply(report, now: Fixture.now), forHost: index, at: Fixture.now), "no bell for it")
    }

    func testTheRowIsDimmedAndMarkedAndLeavesTheBannerAndTheCounts() throws {
        var state = Fixture.mixedState()
        let before = Fixture.text(DashboardLayout.paint(&state, width: 160, height: 30, now: Fixture.now))
        XCTAssertTrue(before.contains("LEAF ONLY bravo.example:443"), before)
        XCTAssertTrue(before.contains(" 1 warning "), before)

        acknowledging(&state, host: bravo)
        _ = state.handle(.character("j"))  // the bar off bravo, so its own style shows
        let frame = DashboardLayout.paint(&state, width: 160, height: 30, now: Fixture.now)
        let lines = Fixture.lines(frame)
        let text = lines.joined(separator: "\n")
        XCTAssertFalse(text.contains("LEAF ONLY bravo.example"), text)
        XCTAssertFalse(text.contains(" 1 warning "), text)
        XCTAssertTrue(text.contains(" 1 acknowledged "), text)
        let row = try XCTUnwrap(lines.firstIndex { $0.contains("bravo.example:443") }, text)
        XCTAssertTrue(lines[row].contains("~ leaf_only"), lines[row])
        XCTAssertTrue(lines[row].contains("acknowledged: app 5.2 ships Friday"), lines[row])
        for column in 0..<frame.width where !frame[row, column].text.trimmingCharacters(in: .whitespaces).isEmpty {
            XCTAssertEqual(frame[row, column].style.role, .dim, "column \(column) of \(lines[row])")
        }

        // Every built-in theme draws dim apart from normal text, or (mono)
        // leaves the `~` to tell it; the pictures carry the same row.
        for builtIn in BuiltInThemes.all {
            let theme = try ThemeLoader.parse(yaml: builtIn.yaml, file: builtIn.name)
            let dim = theme.appearance(for: Style(.dim))
            XCTAssertTrue(builtIn.name == "mono" || dim != theme.appearance(for: .normal), builtIn.name)
            for picture in [PictureRenderer.svg(frame, theme: theme), PictureRenderer.html(frame, theme: theme)] {
                XCTAssertTrue(picture.contains("~ leaf_only"), builtIn.name)
                XCTAssertTrue(picture.contains("acknowledged: app 5.2 ships Friday"), builtIn.name)
            }
        }
    }

    func testTheDetailViewSaysUntilWhenByWhomAndWhy() {
        var state = Fixture.mixedState()
        acknowledging(&state, host: bravo)
        state.view = .detail(hostIndex: bravo)
        let text = Fixture.text(DashboardLayout.paint(&state, width: 160, height: 40, now: Fixture.now))
        XCTAssertTrue(text.contains(" ack       until 2026-11-19 11:06 UTC by ana (2026-11-18 11:06 UTC): app 5.2 ships Friday"), text)
    }

    func testThePromptAsksUntilWhenThenWhyAndEscCancels() {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        _ = state.handle(.character("j"))
        XCTAssertEqual(state.selectedHost, bravo)
        XCTAssertEqual(state.handle(.character("a")), [])
        XCTAssertEqual(state.acknowledgementPrompt?.until, "7d")
        var text = Fixture.text(DashboardLayout.paint(&state, width: 160, height: 30, now: Fixture.now))
        XCTAssertTrue(text.contains("acknowledge bravo.example:443 until: 7d▏"), text)
        // Keys go to the prompt, not the table: `q` does not quit, `t` is typed.
        _ = state.handle(.ctrlU)
        for character in "2026-13-01" { XCTAssertEqual(state.handle(.character(character)), []) }
        _ = state.handle(.enter)
        XCTAssertNotNil(state.acknowledgementPrompt?.problem, "a month 13 is refused")
        XCTAssertEqual(state.acknowledgementPrompt?.field, .until)
        _ = state.handle(.ctrlU)
        for character in "12h" { _ = state.handle(.character(character)) }
        _ = state.handle(.enter)
        XCTAssertEqual(state.acknowledgementPrompt?.field, .reason)
        _ = state.handle(.enter)
        XCTAssertEqual(state.acknowledgementPrompt?.problem, "say why, for whoever sees the host dimmed")
        _ = state.handle(.character("\u{1B}"))
        _ = state.handle(.character("\u{9B}"))
        for _ in 0..<300 { _ = state.handle(.character("q")) }
        XCTAssertEqual(state.acknowledgementPrompt?.reason.count, AcknowledgementPrompt.reasonCharacters, "bounded, no control characters")
        text = Fixture.text(DashboardLayout.paint(&state, width: 160, height: 30, now: Fixture.now))
        XCTAssertTrue(text.contains("acknowledge bravo.example:443 until 12h, because: qqq"), text)
        XCTAssertEqual(
            state.handle(.enter),
            [.acknowledge(hostIndex: bravo, until: "12h", reason: String(repeating: "q", count: AcknowledgementPrompt.reasonCharacters))])
        XCTAssertNil(state.acknowledgementPrompt)

        _ = state.handle(.character("a"))
        _ = state.handle(.escape)
        XCTAssertNil(state.acknowledgementPrompt)
        XCTAssertEqual(state.footerMessage, "acknowledgement cancelled")

        _ = state.handle(.character("g"))
        XCTAssertEqual(state.handle(.character("a")), [], "alpha is ok: nothing to acknowledge")
        XCTAssertEqual(state.footerMessage, "nothing to acknowledge: alpha.example:443 is ok")
        XCTAssertNil(state.acknowledgementPrompt)

        state.canStoreAcknowledgements = false
        _ = state.handle(.character("j"))
        _ = state.handle(.character("a"))
        XCTAssertNil(state.acknowledgementPrompt)
        XCTAssertTrue(state.footerMessage?.hasPrefix("cannot acknowledge: history is off") == true, state.footerMessage ?? "")
    }

    func testAReloadCancelsThePromptSinceIndicesMayNameOtherHosts() {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        _ = state.handle(.character("j"))
        _ = state.handle(.character("a"))
        XCTAssertEqual(state.acknowledgementPrompt?.hostIndex, bravo)
        state.replaceHosts(Array(state.hosts.reversed()), warnDays: 21, criticalDays: 7)
        XCTAssertNil(state.acknowledgementPrompt)
        XCTAssertEqual(state.footerMessage, "acknowledgement cancelled: the configuration was reloaded")
    }

    func testAOnAnAcknowledgedHostRemovesIt() {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        acknowledging(&state, host: bravo)
        _ = state.handle(.character("j"))
        XCTAssertEqual(state.handle(.character("a")), [.removeAcknowledgement(hostIndex: bravo)])
        XCTAssertEqual(state.handle(.character("A")), [.removeAcknowledgement(hostIndex: bravo)])
    }
}
