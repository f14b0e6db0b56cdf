import Foundation
import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// The attacks of a past attack run that Core must turn away, without sockets or terminals.
final class HostileInputTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "pinwatch-hostile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func problems(_ yaml: String) -> [ConfigProblem] {
        do {
            _ = try ConfigLoader { _ in [] }.load(yaml: yaml, path: directory + "/pinwatch.yaml")
            return []
        } catch {
            return error.problems
        }
    }

    // MARK: Bounds

    func testDurationsAndNumbersOutsideTheirBoundsAreProblems() {
        let cases: [(yaml: String, key: String, text: String)] = [
            ("interval: 5124096h\n", "interval", "out of range"),
            ("interval: \(String(repeating: "9", count: 400))\n", "interval", "bad duration"),
            ("interval: 500ms\n", "interval", "out of range"),
            ("interval: 8d\n", "interval", "bad duration"),
            ("interval: 30s\ntimeout: 31s\n", "timeout", "longer than interval 30s"),
            ("interval: 2s\n", "interval", "that timeout is the default"),
            ("timeout: 1ms\n", "timeout", "below the minimum"),
            ("concurrency: 10001\n", "concurrency", "out of range"),
            ("warn_days: 3651\n", "warn_days", "out of range"),
        ]
        for (yaml, key, text) in cases {
            let found = problems(yaml)
            XCTAssertEqual(found.map(\.key), [key], yaml)
            XCTAssertTrue(found.first?.message.contains(text) == true, "\(yaml): \(found)")
            XCTAssertLessThan(found.first?.message.count ?? 0, 200, "no 400-digit echo")
        }
        XCTAssertTrue(problems("interval: 1s\ntimeout: 1s\n").isEmpty)
        XCTAssertTrue(problems("interval: 168h\n").isEmpty, "one week is allowed")
    }

    func testDurationParsingRefusesInfinity() {
        XCTAssertNil(ConfigDuration.parse(String(repeating: "9", count: 400) + "h"))
        XCTAssertEqual(ConfigDuration.describe(0.5), "500ms")
        XCTAssertEqual(ConfigDuration.describe(90), "90s")
        XCTAssertEqual(ConfigDuration.describe(2.5), "2.5s")
    }

    // MARK: YAML aliases

    func testAliasesAndAnchorsAreFoundWhereYAMLSeesThem() {
        let refused: [(yaml: String, line: Int)] = [
            ("a: &x 1\n", 1),
            ("a: 1\nb: *x\n", 2),
            ("y: {*a8 : v}\n", 1),
            ("list: [a,*b]\n", 1),
            ("- *x\n", 1),
            ("a: !!str &x v\n", 1),
            ("a: |\n  text\nb: *x\n", 3),
            ("a: 'it''s'\nb: *x\n", 2),
            ("a: \"q\\\" *not\"\nb: &x 1\n", 2),
            ("a: b 'c\nb: *x\n", 2),
            ("- key: |\n    text\n  other: *x\n", 3),
        ]
        for (yaml, line) in refused {
            let found = YAMLAliasGuard.firstAliasOrAnchor(in: yaml)
            XCTAssertEqual(found?.line, line, yaml.debugDescription)
        }
        let allowed = [
            "no_proxy: \"*\"\n",
            "a: x*y & z\n",
            "a: 1 # *x &y\n",
            "a: |\n  *not an alias\n  &nor an anchor\nb: 2\n",
            "a: '*quoted'\n",
            "pins: [\"sha256/AB+/=\", 'x*']\n",
            "url: http://u:p@h:1/*\n",
            "hosts:\n  - host: a.test\n    pins: {ca: [sha256/x]}\n",
        ]
        for yaml in allowed {
            XCTAssertNil(YAMLAliasGuard.firstAliasOrAnchor(in: yaml), yaml.debugDescription)
        }
    }

    func testBillionLaughsIsRefusedBeforeTheYAMLLibrary() {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...8 {
            lines.append("a\(level): &a\(level) [\(Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", "))]")
        }
        lines.append("y: {*a8 : v}")
        let found = problems(lines.joined(separator: "\n"))
        XCTAssertEqual(found.map(\.line), [1])
        XCTAssertTrue(found.first?.message.contains("anchors") == true, "\(found)")
    }

    // MARK: Files

    func testOnlyRegularFilesAreRead() throws {
        let fifo = directory + "/pipe"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try RegularFile.read(fifo, limit: 1024)) { error in
            XCTAssertEqual((error as? RegularFile.ReadError)?.reason, "a FIFO (named pipe), not a regular file")
        }
        XCTAssertThrowsError(try RegularFile.read(directory, limit: 1024)) { error in
            XCTAssertEqual((error as? RegularFile.ReadError)?.reason, "a directory, not a regular file")
        }
        XCTAssertThrowsError(try RegularFile.read(directory + "/none", limit: 1024)) { error in
            XCTAssertEqual((error as? RegularFile.ReadError)?.reason, "no such file")
        }
        let big = directory + "/big"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: Data(count: 2048)))
        XCTAssertThrowsError(try RegularFile.read(big, limit: 1024)) { error in
            XCTAssertEqual((error as? RegularFile.ReadError)?.reason, "larger than 1 KiB")
        }
        XCTAssertEqual(try RegularFile.read(big, limit: 2048).count, 2048)
    }

    func testNonUTF8TextNamesItsLine() throws {
        let path = directory + "/latin1.yaml"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data([0x61, 0x0A, 0x62, 0x0A, 0x63, 0xE9, 0x0A])))
        XCTAssertThrowsError(try Self.fileLoader.load(path: path)) { error in
            let problem = (error as? ConfigError)?.problems.first
            XCTAssertEqual(problem?.line, 3)
            XCTAssertEqual(problem?.description, "\(path):3: not UTF-8 text; save it as UTF-8")
        }
    }

    func testAFileThatCannotBeReadHasNoEmptyLineOrKey() {
        XCTAssertThrowsError(try Self.fileLoader.load(path: directory + "/x.yaml")) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "\(self.directory)/x.yaml: no such file")
        }
    }

    private static let fileLoader = ConfigLoader(
        certificateDigests: { _ in [] },
        readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) })

    // MARK: Names and credentials

    func testControlCharactersInNamesAreRefused() {
        XCTAssertNotNil(HostNameCheck.problem("good.test\u{0}.attacker.example"))
        XCTAssertNotNil(HostNameCheck.problem("good.test\u{1B}[2J"))
        XCTAssertNotNil(HostNameCheck.problem("good.test\u{85}"))
        XCTAssertNil(HostNameCheck.problem("bücher.example"))
        XCTAssertNil(HostNameCheck.problem("2001:db8::1"))
        // The ASCII path and the Unicode path refuse alike.
        for refused in ["a b.test", "a\tb.test", "a/b.test", "a.test\u{7F}", String(repeating: "a", count: 254)] {
            XCTAssertNotNil(HostNameCheck.problem(refused), refused)
            XCTAssertNotNil(HostNameCheck.problem(refused + "ü"), refused + "ü")
        }
        XCTAssertNotNil(HostNameCheck.problem("a\u{A0}b.test"), "a no-break space is whitespace")
        XCTAssertNotNil(HostNameCheck.problem("a\u{2003}b.test"), "an em space is whitespace")
        XCTAssertNil(HostNameCheck.problem(String(repeating: "a", count: 253)))
        let found = problems("hosts:\n  - host: \"good.test\\0.attacker.example\"\n  - host: b.test\n    sni: \"b\\tc\"\n")
        XCTAssertEqual(found.map(\.key), ["hosts[0].host", "hosts[1].sni"])
        XCTAssertFalse(found.map(\.message).joined().unicodeScalars.contains { $0.value < 0x20 })
    }

    /// Found by `scripts/fuzz config`: an unknown key is echoed, and a
    /// quoted key can hold any control character.
    func testUnknownKeysAreEchoedWithoutControlCharacters() {
        let found = problems(
            "\"\\e]52;c;aGk=\\a\": 1\n\"tab\\there\": 2\n\"\(String(repeating: "k", count: 500))\": 3\nhosts: [{host: a.test}]\n")
        XCTAssertEqual(found.count, 3, "\(found)")
        for problem in found {
            XCTAssertFalse(
                problem.description.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, problem.description)
            XCTAssertTrue(problem.description.hasSuffix("unknown key"), problem.description)
            XCTAssertLessThan(problem.description.count, 200)
        }
    }

    func testProxyURLProblemsNeverRepeatACredential() {
        for url in ["http://user:S3cr3tPW", "user:S3cr3tPW", "S3cr3tPW://proxy:1", "http://user:S3cr3tPW@"] {
            do {
                _ = try ProxyRoute.parse(url: url, source: "https_proxy")
                XCTFail("\(url) parsed")
            } catch {
                XCTAssertFalse(error.description.contains("S3cr3tPW"), error.description)
            }
        }
        XCTAssertEqual(ProxyRoute.redacted("http://user:S3cr3tPW"), "http://***")
        XCTAssertEqual(ProxyRoute.redacted("S3cr3tPW"), "***")
    }

    // MARK: Echoed input

    func testEchoedInputIsShortAndClean() {
        let long = String(repeating: "A", count: 3_000_000)
        let echoed = EchoedInput.quoted(long)
        XCTAssertLessThanOrEqual(echoed.count, EchoedInput.maximumCharacters + 2)
        XCTAssertTrue(echoed.contains("…"))
        XCTAssertEqual(EchoedInput.quoted("a\u{1B}b"), "\"a\u{FFFD}b\"")
        XCTAssertEqual(TerminalText.sanitize("pay\u{200B}ments\u{FEFF}"), "pay\u{FFFD}ments\u{FFFD}")
    }
}
