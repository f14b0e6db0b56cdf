import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

/// The acknowledgement prompt judges a typed date against the clock of the
/// latest paint (the state keeps none): a moment already past is refused at
/// the prompt, before a reason is asked for; and a line or paragraph
/// separator is never typed into the reason.
final class AcknowledgementPromptTimeTests: XCTestCase {
    private let bravo = 1  // leaf_only in the mixed state

    private func promptOnBravo(paintedAt now: Date) -> DashboardState {
        var state = Fixture.mixedState()
        state.sortOrder = .configuration
        _ = state.handle(.character("j"))
        _ = state.handle(.character("a"))
        XCTAssertEqual(state.acknowledgementPrompt?.hostIndex, bravo)
        _ = DashboardLayout.paint(&state, width: 160, height: 30, now: now)
        _ = state.handle(.ctrlU)
        return state
    }

    private func type(_ text: String, into state: inout DashboardState) {
        for character in text { _ = state.handle(.character(character)) }
    }

    func testAnUntilInThePastIsRefusedAtThePrompt() {
        // Fixture.now is 2026-11-18 11:06 UTC.
        for past in ["2026-11-17", "2026-11-18T11:00:00Z"] {
            var state = promptOnBravo(paintedAt: Fixture.now)
            type(past, into: &state)
            XCTAssertEqual(state.handle(.enter), [])
            XCTAssertEqual(state.acknowledgementPrompt?.field, .until, past)
            XCTAssertTrue(
                state.acknowledgementPrompt?.problem?.hasSuffix("is in the past: write a later date or a duration") == true,
                state.acknowledgementPrompt?.problem ?? "no problem for \(past)")
        }

        // The same date is accepted on a clock still before it.
        var earlier = promptOnBravo(paintedAt: Fixture.now - 3 * 86_400)
        type("2026-11-17", into: &earlier)
        _ = earlier.handle(.enter)
        XCTAssertEqual(earlier.acknowledgementPrompt?.field, .reason)
        XCTAssertNil(earlier.acknowledgementPrompt?.problem)
    }

    func testLineAndParagraphSeparatorsAreNeverTyped() {
        var state = promptOnBravo(paintedAt: Fixture.now)
        type("7d", into: &state)
        _ = state.handle(.enter)
        XCTAssertEqual(state.acknowledgementPrompt?.field, .reason)
        type("ships\u{2028}hooks:\u{2029}x\u{85}", into: &state)
        XCTAssertEqual(state.acknowledgementPrompt?.reason, "shipshooks:x")
    }
}
