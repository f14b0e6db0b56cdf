import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchUI

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `snapshot --format svg|html` (the runbook export): the same
/// Frame as the screen, as a standalone picture.
final class PictureRendererTests: XCTestCase {
    private let now = Fixture.now

    private func mixedFrame(extraHost: String? = nil) -> (Frame, DashboardState) {
        var state = Fixture.mixedState()
        if let extraHost {
            let host = Fixture.host(extraHost)
            var hosts = state.hosts
            hosts.append(host)
            state.replaceHosts(hosts, warnDays: 21, criticalDays: 7)
            state.record(Fixture.report(for: host, status: .blocked), forHost: hosts.count - 1, at: now)
        }
        return (DashboardLayout.snapshotFrame(for: state, width: 120, now: now), state)
    }

    /// The text of every `<text>` element, one string per element.
    private final class TextCollector: NSObject, XMLParserDelegate {
        var texts: [String] = []
        private var inside = false

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if name == "text" {
                inside = true
                texts.append("")
            }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" { inside = false }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inside { texts[texts.count - 1] += string }
        }
    }

    func testSVGIsXMLWithEveryRowAndTheRoleColours() throws {
        let (frame, _) = mixedFrame()
        let svg = PictureRenderer.svg(frame, theme: ThemeLoader.builtInDefault)
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = TextCollector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "\(String(describing: parser.parserError))")
        let shown = collector.texts.joined(separator: "\n")
        for row in 0..<frame.height {
            for word in frame.text(ofRow: row).split(separator: " ") {
                XCTAssertTrue(shown.contains(word), "row \(row) word \(word) missing")
            }
        }
        // Default theme: leaf green, intermediate blue, root red (DESIGN §2),
        // as the picture draws them readable (PictureColors).
        for role in [StyleRole.leaf, .intermediate, .root] {
            let look = ThemeLoader.builtInDefault.appearance(for: Style(role))
            let colour = PictureColors.hex(PictureColors.pair(for: look).foreground)
            XCTAssertTrue(svg.contains("fill=\"\(colour)\""), "\(role) \(colour)")
        }
        XCTAssertFalse(svg.contains("<script"))
        XCTAssertFalse(svg.contains("href"), "nothing to fetch")
    }

    func testHostileTextStaysText() throws {
        let (frame, _) = mixedFrame(extraHost: "evil<script>alert(1)</script>]]>.test")
        for output in [
            PictureRenderer.svg(frame, theme: ThemeLoader.builtInDefault), PictureRenderer.html(frame, theme: ThemeLoader.builtInDefault),
        ] {
            XCTAssertFalse(output.contains("<script"), output)
            XCTAssertFalse(output.contains("]]>"))
            XCTAssertTrue(output.contains("evil&lt;script&gt;"), output)
        }
        let svg = PictureRenderer.svg(frame, theme: ThemeLoader.builtInDefault)
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse(), "still well-formed")
    }

    /// The title is not drawn through the frame: it takes the same rule
    /// for control characters, line and paragraph separators included.
    func testATitleHoldsNoControlCharacter() throws {
        let (frame, _) = mixedFrame()
        let title = "pinwatch inspect a\u{2028}b\u{2029}c\u{85}d\u{1B}[2J\u{7}"
        for output in [
            PictureRenderer.svg(frame, theme: ThemeLoader.builtInDefault, title: title),
            PictureRenderer.html(frame, theme: ThemeLoader.builtInDefault, title: title),
        ] {
            XCTAssertFalse(output.unicodeScalars.contains { TerminalText.isControl($0) && $0 != "\n" }, output)
        }
        let svg = PictureRenderer.svg(frame, theme: ThemeLoader.builtInDefault, title: title)
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse(), "still well-formed")
    }

    func testHTMLIsOnePreWithTheSameRows() {
        let (frame, _) = mixedFrame()
        let html = PictureRenderer.html(frame, theme: ThemeLoader.mono, title: "runbook")
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains("<title>runbook</title>"))
        XCTAssertEqual(html.components(separatedBy: "<pre>").count, 2)
        let body = html.components(separatedBy: "<pre>")[1].components(separatedBy: "</pre>")[0]
        let plain = body.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        let lines = plain.split(separator: "\n", omittingEmptySubsequences: false)
        for row in 0..<frame.height {
            XCTAssertEqual(lines[row], Substring(frame.text(ofRow: row)), "row \(row)")
        }
    }
}
