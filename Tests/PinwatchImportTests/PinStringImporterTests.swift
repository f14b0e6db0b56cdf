import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

final class PinStringImporterTests: XCTestCase {
    private func read(_ text: String, _ format: ClientFormat, file: String = "Pins.kt") throws -> ImportedPins {
        try PinStringImporter.read(text, file: file, format: format)
    }

    private func error(_ text: String, _ format: ClientFormat) -> ClientSourceError? {
        ImportFixtures.error { () throws(ClientSourceError) in try PinStringImporter.read(text, file: "in.txt", format: format) }
    }

    func testOkHttpCallsAreReadAcrossLineBreaks() throws {
        let source = """
            val pinner = CertificatePinner.Builder()
                .add("api.example.com", "sha256/\(ImportFixtures.base64(1))")
                .add(
                    "*.cdn.example.com",
                    "sha256/\(ImportFixtures.base64(2))",
                    "sha256/\(ImportFixtures.base64(3))",
                )
                .add("**.example.org", "sha1/\(ImportFixtures.base64(4, count: 20))")
                .add(BuildConfig.HOST, BuildConfig.PIN)
                .build()
            list.add("not a pin call")
            """
        let pins = try read(source, .okhttp)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", "*.cdn.example.com", "**.example.org"])
        XCTAssertEqual(pins.rules[1].pins, [ImportFixtures.pin(2), ImportFixtures.pin(3)])
        XCTAssertEqual(pins.rules.map(\.origin), ["Pins.kt:2", "Pins.kt:3", "Pins.kt:8"])
        XCTAssertEqual(pins.rules[2].pins.first?.kind, .spkiSHA1)
        XCTAssertEqual(pins.notes.count, 2)
        XCTAssertTrue(pins.notes[0].message.contains("SHA-1 pins are not supported by modern clients"), "\(pins.notes)")
        XCTAssertEqual(pins.notes[0].origin, "Pins.kt:8")
        XCTAssertEqual(
            pins.notes[1].description,
            "Pins.kt:9: pins not read: \"BuildConfig.HOST\", \"BuildConfig.PIN\" are not string constants of this file")
    }

    /// OkHttp's own documentation names the host in a variable:
    /// `String hostname = "publicobject.com"; … .add(hostname, "sha256/…")`.
    func testOkHttpHostsAndPinsFromStringConstantsOfTheSameFile() throws {
        let java = try read(
            """
            String hostname = "publicobject.com";
            private static final String BACKUP = "sha256/\(ImportFixtures.base64(2))"; // the next key
            CertificatePinner certificatePinner = new CertificatePinner.Builder()
                .add(hostname, "sha256/\(ImportFixtures.base64(1))", BACKUP)
                .build();
            """, .okhttp, file: "Pinning.java")
        XCTAssertEqual(java.rules.map(\.domain), ["publicobject.com"])
        XCTAssertEqual(java.rules.first?.pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)])
        XCTAssertEqual(java.rules.first?.origin, "Pinning.java:4")
        XCTAssertEqual(java.notes, [])

        let kotlin = try read(
            """
            companion object {
                const val API_HOST = "api.example.com"
                private val CDN_HOST: String = "*.cdn.example.com"
                val PIN_1 = "sha256/\(ImportFixtures.base64(3))"
                /* val PIN_1 = "sha256/ignored" */
                val URL = "https://$API_HOST/v1"
            }
            val pinner = CertificatePinner.Builder()
                .add(API_HOST, PIN_1)
                .add(CDN_HOST, PIN_1, BuildConfig.CDN_BACKUP)
                .add(URL, PIN_1)
                .build()
            """, .okhttp)
        XCTAssertEqual(kotlin.rules.map(\.domain), ["api.example.com"])
        XCTAssertEqual(kotlin.rules.first?.pins, [ImportFixtures.pin(3)])
        XCTAssertEqual(
            kotlin.notes.map(\.description),
            [
                "Pins.kt:10: pins not read: \"BuildConfig.CDN_BACKUP\" is not a string constant of this file",
                "Pins.kt:11: pins not read: \"URL\" is not a string constant of this file",
            ], "a template is not a constant")
    }

    /// Each `.add(` of a file that never closes them must not be read to the
    /// end of the file again.
    func testUnclosedOkHttpCallsAreReadInOnePass() {
        let text = "CertificatePinner " + String(repeating: ".add(HOST, ", count: 100_000)
        let started = ContinuousClock.now
        XCTAssertEqual(error(text, .okhttp)?.description, "in.txt: no OkHttp CertificatePinner pins found")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    func testOkHttpCallsNoneOfWhichResolveNameWhatIsMissing() {
        let failure = error(
            """
            val HOST = "a.example.com"
            val HOST = "b.example.com"
            CertificatePinner.Builder()
                .add(HOST, "sha256/" + BuildConfig.KEY)
            """, .okhttp)
        XCTAssertEqual(
            failure?.description,
            "in.txt:4: no OkHttp CertificatePinner pins found: \"HOST\", \"\"sha256/\"+BuildConfig.KEY\" are not string constants of this file"
        )
    }

    func testOkHttpPatternsMatchAsOkHttpDoes() throws {
        let rules = try read(
            ".add(\"*.example.com\", \"sha256/\(ImportFixtures.base64(1))\")\n.add(\"**.example.org\", \"sha256/\(ImportFixtures.base64(2))\")",
            .okhttp
        ).rules
        XCTAssertNotNil(rules[0].specificity(for: "api.example.com"))
        XCTAssertNil(rules[0].specificity(for: "a.b.example.com"), "* is one label")
        XCTAssertNil(rules[0].specificity(for: "example.com"))
        XCTAssertNotNil(rules[1].specificity(for: "a.b.example.org"), "** is any depth")
        XCTAssertNotNil(rules[1].specificity(for: "example.org"))
        XCTAssertFalse(rules[0].isConcreteHost)
    }

    func testCurlPinsTakeTheHostFromTheURL() throws {
        let pins = try read(
            """
            #!/bin/sh
            curl -sS --pinnedpubkey 'sha256//\(ImportFixtures.base64(1));sha256//\(ImportFixtures.base64(2))' https://user@api.example.com:8443/health
            curl --pinnedpubkey /etc/keys/pub.pem https://other.example.com/
            curl --pinnedpubkey "sha256//\(ImportFixtures.base64(3))" "$URL"
            """, .curl, file: "probe.sh")
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", ""], "a URL from a variable leaves the host to the client entry")
        XCTAssertEqual(pins.rules[0].pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)])
        XCTAssertEqual(pins.rules[1].origin, "probe.sh:4")
        XCTAssertEqual(pins.notes.map(\.origin), ["probe.sh:3"])
        XCTAssertTrue(pins.notes[0].message.contains("is a key file, not a hash"), "\(pins.notes)")
    }

    func testHPKPHeadersWithHostReportOnlyAndMaxAge() throws {
        let pins = try read(
            """
            HTTP/1.1 200 OK
            Host: www.example.com
            Public-Key-Pins: pin-sha256="\(ImportFixtures.base64(1))"; pin-sha256="\(ImportFixtures.base64(2))"; max-age=5184000; includeSubDomains
            Public-Key-Pins-Report-Only: pin-sha256="\(ImportFixtures.base64(3))"; report-uri="https://r.example/"
            """, .hpkp, file: "headers.txt")
        XCTAssertEqual(pins.rules.map(\.domain), ["www.example.com", "www.example.com"])
        XCTAssertTrue(pins.rules[0].includeSubdomains)
        XCTAssertTrue(pins.rules[0].enforced)
        XCTAssertFalse(pins.rules[1].enforced)
        XCTAssertEqual(
            pins.notes.map(\.message), ["no max-age: browsers ignore this header", "Report-Only: failures are reported, not refused"])
    }

    /// `curl -sI` writes a response head with CRLF line endings, and so do
    /// Windows editors; Swift reads "\r\n" as one character, never "\n".
    func testCRLFLineEndingsAreLinesToo() throws {
        let head = [
            "HTTP/2 200", "Host: www.example.com",
            "public-key-pins: pin-sha256=\"\(ImportFixtures.base64(1))\"; pin-sha256=\"\(ImportFixtures.base64(2))\"; max-age=5184000",
            "content-type: text/html", "", "",
        ].joined(separator: "\r\n")
        let header = try read(head, .hpkp, file: "headers.txt")
        XCTAssertEqual(header.rules.map(\.domain), ["www.example.com"])
        XCTAssertEqual(header.rules.first?.pins, [ImportFixtures.pin(1), ImportFixtures.pin(2)])
        XCTAssertEqual(header.rules.first?.origin, "headers.txt:3")
        XCTAssertEqual(header.notes, [], "max-age is read, not taken with its CR")

        let script = "#!/bin/sh\r\ncurl --pinnedpubkey sha256//\(ImportFixtures.base64(3)) https://api.example.com/health\r\n"
        XCTAssertEqual(try read(script, .curl, file: "probe.sh").rules.map(\.origin), ["probe.sh:2"])
        XCTAssertEqual(try read(script, .curl, file: "probe.sh").rules.map(\.domain), ["api.example.com"])

        let kotlin =
            "val p = CertificatePinner.Builder()\r\n\r\n    .add(\"api.example.com\",\r\n\"sha256/\(ImportFixtures.base64(4))\")\r\n"
        XCTAssertEqual(try read(kotlin, .okhttp).rules.map(\.origin), ["Pins.kt:3"])
    }

    /// A `clients:` entry reads its file through the loader: a CRLF header
    /// file loads instead of refusing the configuration.
    func testACRLFHeaderFileLoadsAsAClientSource() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-crlf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("headers.txt").path
        let head = "HTTP/1.1 200 OK\r\nPublic-Key-Pins: pin-sha256=\"\(ImportFixtures.base64(5))\"; max-age=60\r\n\r\n"
        try Data(head.utf8).write(to: URL(fileURLWithPath: path))
        let loader = ClientSourceLoader(verify: { _, _, _ in false })
        let pins = try loader.read(ClientSource(name: "browser", format: .hpkp, location: .file(path), host: "www.example.com"))
        XCTAssertEqual(pins.rules.map(\.pins), [[ImportFixtures.pin(5)]])
        XCTAssertEqual(pins.rules.map(\.origin), ["\(path):2"])
    }

    /// A runbook quotes the header: in backticks in prose, in a fenced
    /// block, in a list item. The backtick is no part of max-age.
    func testHPKPHeadersQuotedInADocument() throws {
        let pins = try read(
            """
            # Pinning runbook

            The Public-Key-Pins header is obsolete in browsers, but our app reads it.
            Production sends `Public-Key-Pins: pin-sha256="\(ImportFixtures.base64(1))"; pin-sha256="\(ImportFixtures.base64(2))"; max-age=5184000`.

            ```http
            > Host: www.example.com
            Public-Key-Pins-Report-Only: pin-sha256="\(ImportFixtures.base64(3))"; max-age=60
            ```

            - `public-key-pins: pin-sha256="\(ImportFixtures.base64(4))"; max-age=1; includeSubDomains`
            """, .hpkp, file: "RUNBOOK.md")
        XCTAssertEqual(pins.rules.map(\.origin), ["RUNBOOK.md:4", "RUNBOOK.md:8", "RUNBOOK.md:11"])
        XCTAssertEqual(pins.rules.map(\.domain), ["www.example.com", "www.example.com", "www.example.com"])
        XCTAssertEqual(
            pins.rules.map(\.pins), [[ImportFixtures.pin(1), ImportFixtures.pin(2)], [ImportFixtures.pin(3)], [ImportFixtures.pin(4)]])
        XCTAssertEqual(pins.rules.map(\.enforced), [true, false, true])
        XCTAssertEqual(pins.rules.map(\.includeSubdomains), [false, false, true])
        XCTAssertEqual(pins.notes.map(\.message), ["Report-Only: failures are reported, not refused"], "every max-age was read")
    }

    /// Test scripts fill the port in later: the host is still the URL's.
    func testCurlURLsWithAPlaceholderPortKeepTheirHost() throws {
        let pins = try read(
            """
            curl --pinnedpubkey 'sha256//\(ImportFixtures.base64(1))' https://localhost:%PORT/health
            curl --pinnedpubkey 'sha256//\(ImportFixtures.base64(2))' "https://user@API.example.com:${PORT}/v1"
            run `curl --pinnedpubkey sha256//\(ImportFixtures.base64(3)) https://cdn.example.com`
            curl --pinnedpubkey 'sha256//\(ImportFixtures.base64(4))' https://%HOST%:%PORT%/
            curl --pinnedpubkey 'sha256//\(ImportFixtures.base64(5))' https://[::1]:$PORT/
            """, .curl, file: "test.sh")
        XCTAssertEqual(
            pins.rules.map(\.domain), ["localhost", "api.example.com", "cdn.example.com", "", "::1"], "a placeholder host is left to host:")
        XCTAssertEqual(pins.rules.map(\.pins.count), [1, 1, 1, 1, 1])
    }

    func testBadInputIsAnErrorWithItsLine() {
        let cases: [(String, ClientFormat, String)] = [
            ("Public-Key-Pins: pin-sha512=\"\(ImportFixtures.base64(1))\"; max-age=1", .hpkp, "in.txt:1: unknown digest \"pin-sha512\""),
            ("\nPublic-Key-Pins: max-age=1", .hpkp, "in.txt:2: a Public-Key-Pins header without pins"),
            ("Public-Key-Pins: =;=; ;", .hpkp, "in.txt:1: a Public-Key-Pins header without pins"),
            ("\n\n.add(\"api.example.com\", \"sha256/AAAA\")", .okhttp, "in.txt:3: pin \"sha256/AAAA\": digest is 3 bytes"),
            (".add(\"api.example.com\", \"md5/AAAA\")", .okhttp, "in.txt:1: pin \"md5/AAAA\": unknown pin form"),
            (".add(\"api.example.com\", \"cert:\(String(repeating: "ab", count: 32))\")", .okhttp, "expected sha256/ or sha1/"),
            (
                ".add(\"not a host\", \"sha256/\(ImportFixtures.base64(1))\")", .okhttp,
                "in.txt:1: pattern \"not a host\" is not a host pattern"
            ),
            ("curl https://example.com/", .curl, "in.txt: no curl --pinnedpubkey pins found"),
            ("nothing here", .okhttp, "no OkHttp CertificatePinner pins found"),
        ]
        for (text, format, expected) in cases {
            let failure = error(text, format)
            XCTAssertTrue(failure?.description.contains(expected) == true, "expected \(expected) in \(String(describing: failure))")
        }
    }

    func testDetectionTellsTheThreeApart() {
        XCTAssertEqual(PinStringImporter.detect("public-key-pins: pin-sha256=\"x\""), .hpkp)
        XCTAssertEqual(PinStringImporter.detect("curl --pinnedpubkey 'sha256//x' https://a"), .curl)
        XCTAssertEqual(PinStringImporter.detect(".add(\"a.example\", \"sha256/x\")"), .okhttp)
        XCTAssertNil(PinStringImporter.detect("hello"))
    }
}
