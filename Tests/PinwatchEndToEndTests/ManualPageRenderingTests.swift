import Foundation
import PinwatchCore
import PinwatchTestSupport
import XCTest

/// The manual pages `pinwatch --generate-manual` writes (the ones the
/// package installs and `scripts/man` commits), read through man(1) as a
/// user reads them.
final class ManualPageRenderingTests: XCTestCase {
    private var folder: URL!
    private static let epoch = "1795651200"  // 2026-11-26

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-manual-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Both pages, as the package makes them: name → source.
    private func generatedPages() throws -> [String: String] {
        let main = try PinwatchBinary.run(["--generate-manual"], environment: ["SOURCE_DATE_EPOCH": Self.epoch])
        XCTAssertEqual(main.status, 0, main.stderr)
        let serve = PinwatchBinary.url.deletingLastPathComponent().appendingPathComponent("pinwatch-serve").path
        let companion = try PinwatchBinary.runShell(
            "'\(serve)' --experimental-dump-help | SOURCE_DATE_EPOCH=\(Self.epoch) '\(PinwatchBinary.url.path)' --generate-manual pinwatch-serve"
        )
        XCTAssertEqual(companion.status, 0, companion.stderr)
        return ["pinwatch.1": main.stdout, "pinwatch-serve.1": companion.stdout]
    }

    private func write(_ page: String, named name: String) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try page.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// man(1) as a user runs it, on an 80-column terminal, in `locale`.
    private func man(_ page: URL, locale: String) throws -> SpawnedCommand.Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "80"
        environment["LANG"] = locale
        environment["LC_ALL"] = locale
        environment["MAN_KEEP_FORMATTING"] = nil
        let outcome = try SpawnedCommand.run(
            "/usr/bin/man", ["-l", "--warnings=all", page.path], environment: environment, timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        return outcome
    }

    func testThePagesRenderWithoutWarnings() throws {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/man"), "man is not installed (man-db)", skip: { XCTSkip($0) })
        for (name, page) in try generatedPages() {
            let url = try write(page, named: name)
            for locale in ["C.UTF-8", "C"] {
                let outcome = try man(url, locale: locale)
                XCTAssertEqual(outcome.stderr, "", "\(name) under LANG=\(locale)")
            }
        }
    }

    /// mandoc's linter knows mdoc's rules (a sentence per line, sections in
    /// their order, .Xr sorted) that groff lets pass.
    func testThePagesPassMandocLint() throws {
        try TestEnvironment.require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/mandoc"), "mandoc is not installed (apt-get install mandoc)",
            skip: { XCTSkip($0) })
        for (name, page) in try generatedPages() {
            let url = try write(page, named: name)
            let outcome = try SpawnedCommand.run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", url.path], timeout: 30)
            XCTAssertEqual(outcome.status, 0, outcome.output)
            XCTAssertEqual(outcome.output, "", name)
        }
    }

    func testThePageHasTheSectionsAnInstalledSystemNeeds() throws {
        let page = try write(try generatedPages()["pinwatch.1"] ?? "", named: "pinwatch.1")
        let text = try man(page, locale: "C.UTF-8").stdout
        let headings = text.split(separator: "\n").filter { $0.first?.isUppercase == true }.map(String.init)
        let expected = [
            "NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "CONFIGURATION", "ENVIRONMENT", "FILES", "EXIT STATUS",
            "EXAMPLES", "SEE ALSO",
        ]
        XCTAssertEqual(headings.filter { expected.contains($0) }, expected, text)
        for variable in [
            "NO_COLOR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "NO_PROXY",
        ] {
            XCTAssertTrue(section("ENVIRONMENT", of: text).contains(variable), "ENVIRONMENT lacks \(variable)")
        }
        let files = section("FILES", of: text)
        for path in ["./pinwatch.yaml", "$XDG_CONFIG_HOME/pinwatch/config.yaml", "$XDG_STATE_HOME/pinwatch/state.sqlite"] {
            XCTAssertTrue(files.contains(path), "FILES lacks \(path)")
        }
        let exit = section("EXIT STATUS", of: text)
        for word in ["OK", "WARNING", "CRITICAL", "UNKNOWN", "141"] {
            XCTAssertTrue(exit.contains(word), "EXIT STATUS lacks \(word)")
        }
    }

    /// Every key `ConfigKeyGuide` lists (which ConfigKeyGuideTests holds to
    /// the parser's known keys) has its line under its heading.
    func testEveryConfigurationKeyHasALine() throws {
        let page = try generatedPages()["pinwatch.1"] ?? ""
        for guide in ConfigKeyGuide.sections {
            guard let start = page.range(of: ".Ss \(guide.title)\n") else {
                XCTFail("no subsection \(guide.title)")
                continue
            }
            let block = String(page[start.upperBound...]).components(separatedBy: "\n.El\n").first ?? ""
            for key in guide.keys {
                XCTAssertTrue(block.contains(".It Cm \(key.name)\n"), "\(guide.title): no line for \(key.name)")
            }
        }
    }

    /// Non-ASCII characters of the help texts (≤, ↑/↓, —) stay readable:
    /// themselves in a UTF-8 locale, ASCII under LANG=C, never raw bytes
    /// an ASCII terminal shows as garbage.
    func testNonASCIICharactersStayReadableInEveryLocale() throws {
        let source = try generatedPages()["pinwatch.1"] ?? ""
        XCTAssertTrue(source.unicodeScalars.allSatisfy(\.isASCII), "the page source carries raw non-ASCII bytes")
        let page = try write(source, named: "pinwatch.1")
        let utf8 = try man(page, locale: "C.UTF-8").stdout
        XCTAssertTrue(utf8.contains("0 ≤ I < N"), utf8)
        XCTAssertTrue(utf8.contains("↑/↓"), utf8)
        XCTAssertTrue(utf8.contains("pinwatch — watch live TLS chains"), utf8)
        let ascii = try man(page, locale: "C")
        XCTAssertTrue(ascii.stdout.unicodeScalars.allSatisfy(\.isASCII), "LANG=C output has non-ASCII bytes")
        XCTAssertTrue(ascii.stdout.contains("0 <= I < N"), ascii.stdout)
        XCTAssertTrue(ascii.stdout.contains("^/v"), ascii.stdout)
    }

    /// docs/man is what the README points at: the binary's own pages,
    /// apart from the date line.
    func testTheCommittedPagesAreTheBinarysOwn() throws {
        for (name, page) in try generatedPages() {
            let committed = try String(contentsOf: Self.repository.appendingPathComponent("docs/man/\(name)"), encoding: .utf8)
            let undated = { (text: String) in text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(".Dd ") }
            }
            XCTAssertTrue(undated(committed) == undated(page), "docs/man/\(name) differs from the binary's page: run scripts/man")
        }
    }

    /// The text of one section of man's output: from its heading to the next.
    private func section(_ heading: String, of text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == heading }) else { return "" }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.first?.isUppercase == true } ?? rest.endIndex
        return rest[..<end].joined(separator: "\n")
    }
}
