import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `inspect --format svg|html`: the detail view of a live host
/// as a picture for a runbook, with the certificate's text escaped.
final class CommandsInspectPictureTests: LocalFleetTestCase {
    private static let hostileUnit = "<script>alert(1)</script> ]]> & \"quoted\""

    private func inspect(_ format: String) throws -> (outcome: PinwatchBinary.Outcome, leaf: X509Certificate) {
        let leaf = try fleet.issuing.issueLeaf(
            commonName: "evil.test", dnsNames: ["evil.test"], subjectExtras: [("OU", Self.hostileUnit), ("L", "bell\u{07}\u{1b}[2Jhere")])
        let server = try fleet.keep(LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [fleet.issuing.certificate])))
        let outcome = try fleet.run([
            "inspect", "127.0.0.1:\(server.port)", "--sni", "evil.test", "--trust", fleet.trustURL.path, "--format", format,
            "--width", "200",
        ])
        return (outcome, leaf.certificate)
    }

    /// What every picture of this chain must show: each level's subject and
    /// SPKI pin, the stanza a runbook pastes, and nothing raw from the certificate.
    private func assertShowsTheChain(_ text: String, leaf: X509Certificate) {
        for certificate in [leaf, fleet.issuing.certificate, fleet.root.certificate] {
            XCTAssertTrue(text.contains(LocalFleet.pin(certificate)), "the pin of \(certificate.facts.subject)")
        }
        XCTAssertTrue(text.contains("CN=E2E"), "the CA levels' subjects")
        XCTAssertTrue(text.contains("detail: 127.0.0.1:"), "the detail view's title")
        XCTAssertTrue(text.contains("level 2 · root"), "the root from the trust store")
        XCTAssertTrue(text.contains("pins stanza"), "the stanza is shown, not the key that would show it")
        // OpenSSL's RFC 2253 form puts a backslash before <, > and "; the renderer escapes each for XML.
        let escapedUnit = #"OU=\&lt;script\&gt;alert(1)\&lt;/script\&gt; ]]\&gt; &amp; \&quot;quoted\&quot;"#
        XCTAssertTrue(text.contains(escapedUnit), "hostile subject escaped")
        XCTAssertFalse(text.contains("<script") || text.contains("]]>"))
        XCTAssertFalse(text.containsControlBytes, "the bell and the escape sequence are sanitised")
    }

    func testSVGIsWellFormedAndShowsTheChainItsPinsAndEscapedText() throws {
        let (outcome, leaf) = try inspect("svg")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("<?xml"), String(outcome.stdout.prefix(80)))
        let parser = XMLParser(data: Data(outcome.stdout.utf8))
        XCTAssertTrue(parser.parse(), "well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        assertShowsTheChain(outcome.stdout, leaf: leaf)
    }

    func testHTMLHoldsOnlyItsOwnMarkupAndShowsTheChain() throws {
        let (outcome, leaf) = try inspect("html")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(outcome.stdout.hasPrefix("<!DOCTYPE html>"), String(outcome.stdout.prefix(80)))
        assertShowsTheChain(outcome.stdout, leaf: leaf)
        // Inside <pre> there is nothing but the renderer's spans: with them
        // removed, no markup is left that a certificate could have brought.
        let body = try XCTUnwrap(outcome.stdout.components(separatedBy: "<pre>").last?.components(separatedBy: "</pre>").first)
        let withoutSpans = body.replacingOccurrences(of: #"<span style="[^"<>]*">"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: "</span>", with: "")
        XCTAssertFalse(withoutSpans.contains("<") || withoutSpans.contains(">"), withoutSpans)
        XCTAssertTrue(outcome.stdout.hasSuffix("</pre>\n</body>\n</html>\n"))
    }

    /// The history a `snapshot` recorded for the same host is in the
    /// picture, and drawing it records nothing.
    func testThePictureShowsTheRecordedHistoryAndRecordsNothing() throws {
        let host = try fleet.addOK("shop.test")
        try fleet.writeConfig()
        let store = fleet.directory.appendingPathComponent("history.sqlite")
        let snapshot = try fleet.run(["snapshot", "--format", "json", "--state", store.path])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        let recorded = try Data(contentsOf: store)

        let arguments = [
            "inspect", "shop.test:\(host.port)", "--connect", "127.0.0.1", "--trust", fleet.trustURL.path, "--format", "svg",
            "--width", "160",
        ]
        let picture = try fleet.run(arguments + ["--state", store.path])
        XCTAssertEqual(picture.status, 0, picture.stderr)
        XCTAssertEqual(picture.stderr, "")
        // inspect carries no pins (unpinned): the recorded `ok` does not date it.
        XCTAssertFalse(picture.stdout.contains(" since "), picture.stdout)
        XCTAssertTrue(picture.stdout.contains("latest changes (all: pinwatch history HOST)"), picture.stdout)
        XCTAssertTrue(picture.stdout.contains("first seen: "), picture.stdout)
        XCTAssertTrue(picture.stdout.contains("status ok (ok): "), "the recorded status change: \(picture.stdout)")
        XCTAssertEqual(try Data(contentsOf: store), recorded, "inspect records nothing")

        let without = try fleet.run(arguments + ["--state", "off"])
        XCTAssertEqual(without.status, 0, without.stderr)
        XCTAssertFalse(without.stdout.contains("first seen: "), without.stdout)
        let missing = try fleet.run(arguments + ["--state", fleet.directory.appendingPathComponent("none.sqlite").path])
        XCTAssertEqual(missing.status, 0, missing.stderr)
        XCTAssertTrue(missing.stderr.hasPrefix("pinwatch: history not shown: "), missing.stderr)
    }

    /// `--config`: the configured entry is judged with its own pins (not
    /// as an unpinned host, "inventory mode"), its recorded status dates it,
    /// and no picture says its stanza went to a clipboard.
    func testWithConfigThePictureJudgesTheConfiguredHost() throws {
        let host = try fleet.addOK("shop.test")
        try fleet.writeConfig(settings: ["state: history.sqlite"])
        let snapshot = try fleet.run(["snapshot", "--format", "json"])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)

        for format in ["svg", "html"] {
            let picture = try fleet.run(["inspect", "--config", fleet.configURL.path, "shop.test", "--format", format, "--width", "160"])
            XCTAssertEqual(picture.status, 0, picture.stderr)
            XCTAssertEqual(picture.stderr, "")
            XCTAssertFalse(picture.stdout.contains("inventory mode"), picture.stdout)
            XCTAssertTrue(picture.stdout.contains("✓ matched CA tier: "), picture.stdout)
            XCTAssertTrue(picture.stdout.contains(host.ca[0]), "the configured pin: \(picture.stdout)")
            XCTAssertTrue(picture.stdout.contains("a CA-tier pin matches"), picture.stdout)
            XCTAssertTrue(picture.stdout.contains(" since "), "the configured host's recorded ok dates it: \(picture.stdout)")
            XCTAssertTrue(picture.stdout.contains("pins stanza, ready to paste:"), picture.stdout)
            XCTAssertFalse(picture.stdout.contains("clipboard"), "nothing was sent anywhere: \(picture.stdout)")
        }

        let unknown = try fleet.run(["inspect", "--config", fleet.configURL.path, "nothere.test", "--format", "svg"])
        XCTAssertEqual(unknown.status, 2, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("\"nothere.test\" is not a host of "), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("its hosts: shop.test:\(host.port)"), unknown.stderr)
        let twice = try fleet.run(["inspect", "--config", fleet.configURL.path, "shop.test", "--sni", "x.test"])
        XCTAssertEqual(twice.status, 2, twice.stderr)
        XCTAssertTrue(twice.stderr.contains("--sni comes from the configured host with --config"), twice.stderr)
    }

    func testAPictureWithoutConfigDoesNotClaimTheClipboardEither() throws {
        let (outcome, _) = try inspect("svg")
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(outcome.stdout.contains("clipboard"), outcome.stdout)
    }

    func testAnUnknownFormatIsRefused() throws {
        let outcome = try fleet.run(["inspect", "a.test", "--format", "png"])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains("svg"), outcome.stderr)
    }
}
