import XCTest

@testable import PinwatchCore

/// U+2028 and U+2029 (Zl, Zp) and NEL break lines for YAML, JavaScript and
/// some terminals: every sanitiser treats them as the control characters
/// they act as, through the one rule `TerminalText.isControl`.
final class LineSeparatorTests: XCTestCase {
    private typealias F = Fixtures
    private let separators: [Unicode.Scalar] = ["\u{2028}", "\u{2029}", "\u{85}"]

    private func hasSeparator(_ text: String) -> Bool {
        text.unicodeScalars.contains { separators.contains($0) }
    }

    func testTheOneRuleNamesEveryLineAndParagraphSeparator() {
        for scalar in separators { XCTAssertTrue(TerminalText.isControl(scalar), "U+\(String(scalar.value, radix: 16))") }
        // Exactly Cc, Zl and Zp, whatever Unicode version the runtime has.
        var mismatches: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let category = scalar.properties.generalCategory
            let expected = category == .lineSeparator || category == .paragraphSeparator || category == .control
            if TerminalText.isControl(scalar) != expected { mismatches.append("U+\(String(value, radix: 16))") }
        }
        XCTAssertEqual(mismatches, [])
        for scalar in ["a", " ", "é", "\u{3000}", "\u{2027}", "\u{202A}"] as [Unicode.Scalar] {
            XCTAssertFalse(TerminalText.isControl(scalar), "U+\(String(scalar.value, radix: 16))")
        }
        XCTAssertEqual(TerminalText.sanitize("a\u{2028}b\u{2029}c\u{85}d"), "a\u{FFFD}b\u{FFFD}c\u{FFFD}d")
    }

    func testAnAcknowledgementReasonNeverReachesChecksOutputRaw() {
        var report = F.report(F.host(ca: [F.spkiPin(9)]), F.result(chain: F.chain()))
        report.acknowledgement = Acknowledgement(
            hostIdentity: report.config.identityKey, until: F.now + F.day, reason: "ships Friday\u{2028}PINWATCH OK - all fine",
            by: "ana\u{2029}root", source: .dashboard)
        let text = CheckReport.render([report], warnDays: 21, criticalDays: 7).text
        XCTAssertTrue(text.contains("acknowledged until"), text)
        XCTAssertFalse(hasSeparator(text), text)
        XCTAssertEqual(text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("PINWATCH") }.count, 1, text)
    }

    func testManualPagesAndHostNamesUseTheSameRule() {
        XCTAssertFalse(hasSeparator(RoffText.line("a\u{2028}.TH x\u{85}y")), RoffText.line("a\u{2028}.TH x"))
        XCTAssertFalse(RoffText.line("a\u{7F}b").unicodeScalars.contains("\u{7F}"))
        for name in ["a\u{2028}.test", "a\u{2029}.test", "a\u{85}.test"] {
            XCTAssertTrue(HostNameCheck.problem(name)?.contains("control character") == true, HostNameCheck.problem(name) ?? name)
        }
    }
}
