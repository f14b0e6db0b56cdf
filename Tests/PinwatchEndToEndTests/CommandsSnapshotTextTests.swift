import Foundation
import PinwatchProbe
import XCTest

/// `snapshot --format text|ansi`: the dashboard's screen printed once, and
/// certificate text that tries to drive the terminal.
final class CommandsSnapshotTextTests: LocalFleetTestCase {
    /// An OSC title change (ended by BEL) and an SGR colour in a subject CN.
    static let hostileCommonName = "evil\u{1B}]0;pwned\u{07}cn\u{1B}[31mred"

    func testTextIsOneRowPerHostWithoutEscapesAndAnsiAddsColour() throws {
        try fleet.addOK("ok.test")
        try fleet.addLeafOnly("leafonly.test")
        try fleet.addBlockedNoMatch("nomatch.test")
        try fleet.addUnpinned("inventory.test")
        try fleet.addRefused("refused.test")
        try fleet.writeConfig()
        let names = fleet.hosts.map { "\($0.name):\($0.port)" }

        let text = try fleet.run(["snapshot", "--format", "text", "--width", "220"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertFalse(text.stdout.unicodeScalars.contains { $0.value == 0x1B }, "text carries no ESC byte")
        XCTAssertFalse(text.stdout.containsControlBytes)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.first?.contains("pinwatch") ?? false, "header: \(lines.first ?? "")")
        XCTAssertTrue(lines.first?.contains("5 hosts") ?? false, "header counts hosts: \(lines.first ?? "")")
        for label in ["ok 1", "leaf_only 1", "blocked 1", "error 1", "unpinned 1"] {
            XCTAssertTrue(lines.first?.contains(label) ?? false, "summary '\(label)' in \(lines.first ?? "")")
        }
        let headerIndex = try XCTUnwrap(
            lines.firstIndex { $0.contains("status") && $0.contains("host") && $0.contains("chain") }, text.stdout)
        let rows = Array(lines[(headerIndex + 1)...])
        XCTAssertEqual(rows.count, names.count, "one row per host:\n\(text.stdout)")
        for name in names {
            XCTAssertEqual(rows.filter { $0.contains(name) }.count, 1, "\(name) has one row:\n\(text.stdout)")
        }
        for (name, status) in [
            ("ok.test", "ok"), ("leafonly.test", "leaf_only"), ("nomatch.test", "blocked"), ("inventory.test", "unpinned"),
            ("refused.test", "error"),
        ] {
            XCTAssertTrue(rows.contains { $0.contains(name) && $0.contains(" \(status) ") }, "\(name) row says \(status):\n\(text.stdout)")
        }
        XCTAssertTrue(lines.allSatisfy { $0.count <= 220 }, "fits --width 220")

        let ansi = try fleet.run(["snapshot", "--format", "ansi", "--width", "220"])
        XCTAssertEqual(ansi.status, 0, ansi.stderr)
        XCTAssertNotNil(ansi.stdout.range(of: "\u{1B}\\[[0-9;]*m", options: .regularExpression), "ansi carries SGR colours")
        XCTAssertEqual(Self.strippingSGR(ansi.stdout).split(separator: "\n").count, lines.count, "ansi is the same screen")
        for name in names {
            XCTAssertTrue(Self.strippingSGR(ansi.stdout).contains(name))
        }
    }

    func testHostileSubjectNeverReachesAnyOutputRaw() throws {
        let hostile = try fleet.addOK("hostile.test", commonName: Self.hostileCommonName)
        try fleet.addUnpinned("inventory.test")
        try fleet.writeConfig()
        let leafSubject = try XCTUnwrap(hostile.leafCertificate).facts.subject

        let text = try fleet.run(["snapshot", "--format", "text", "--width", "200"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertFalse(text.stdout.containsControlBytes, "text: \(text.stdout.debugDescription)")
        XCTAssertFalse(text.stderr.containsControlBytes)

        let ansi = try fleet.run(["snapshot", "--format", "ansi", "--width", "200"])
        XCTAssertEqual(ansi.status, 0, ansi.stderr)
        XCTAssertFalse(ansi.stdout.contains("\u{1B}]"), "no OSC sequence in ansi output")
        XCTAssertFalse(ansi.stdout.contains("\u{07}"), "no BEL in ansi output")
        XCTAssertFalse(Self.strippingSGR(ansi.stdout).containsControlBytes, "only the renderer's own SGR sequences")
        XCTAssertFalse(ansi.stdout.contains("\u{1B}[31mred"))

        let json = try fleet.run(["snapshot", "--format", "json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertFalse(json.stdout.containsControlBytes, "JSON escapes control characters")
        let host = try SnapshotJSON.decode(json.stdout).host("hostile.test")
        XCTAssertEqual(host.chain.first?.subject, leafSubject, "the subject survives, escaped")
        XCTAssertTrue(host.chain.first?.subject.contains("pwned") ?? false)

        let inspect = try fleet.run([
            "inspect", "127.0.0.1:\(hostile.port)", "--sni", "hostile.test", "--trust", fleet.trustURL.path,
        ])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("pwned"), "the subject is shown, sanitised")
        XCTAssertFalse(inspect.stdout.containsControlBytes, "inspect: \(inspect.stdout.debugDescription)")

        let check = try fleet.run(["check"])
        XCTAssertFalse(check.stdout.containsControlBytes)
    }

    static func strippingSGR(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }
}
