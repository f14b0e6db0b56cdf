import XCTest

@testable import PinwatchCore

final class PinParserTests: XCTestCase {
    /// SHA-256 of nothing in particular: bytes 0...31, so every form is easy to write by hand.
    private let digest = (0..<32).map { UInt8($0) }
    private var base64: String { Data(digest).base64EncodedString() }
    private var hex: String { digest.map { String(format: "%02x", $0) }.joined() }

    func testSha256FormIsAnSPKIPin() throws {
        let pin = try Pin.parse("sha256/\(base64)")
        XCTAssertEqual(pin.kind, .spki)
        XCTAssertEqual(pin.digest, digest)
        XCTAssertEqual(pin.text, "sha256/\(base64)")
    }

    /// Pasted from a Public-Key-Pins header: quoted, unquoted, with its `;`.
    func testHPKPFormIsTheSha256Form() throws {
        for text in ["pin-sha256=\"\(base64)\"", "pin-sha256=\(base64)", "Pin-SHA256=\"\(base64)\";"] {
            let pin = try Pin.parse(text)
            XCTAssertEqual(pin.kind, .spki, text)
            XCTAssertEqual(pin.digest, digest, text)
        }
        XCTAssertThrowsError(try Pin.parse("pin-sha256=\"short\""))
    }

    func testEveryPrefixWithBase64AndHex() throws {
        let cases: [(String, Pin.Kind)] = [("spki", .spki), ("key", .key), ("cert", .cert)]
        for (prefix, kind) in cases {
            for value in [base64, hex, hex.uppercased()] {
                let pin = try Pin.parse("\(prefix):\(value)")
                XCTAssertEqual(pin.kind, kind, "\(prefix):\(value)")
                XCTAssertEqual(pin.digest, digest, "\(prefix):\(value)")
            }
        }
    }

    func testHexWithColonsInEitherCase() throws {
        let colonHex = digest.map { String(format: "%02X", $0) }.joined(separator: ":")
        let pin = try Pin.parse("cert:\(colonHex)")
        XCTAssertEqual(pin.digest, digest)
        XCTAssertEqual(try Pin.parse("cert:\(colonHex.lowercased())").digest, digest)
    }

    func testWhitespaceAroundIsIgnoredAndNotKept() throws {
        let pin = try Pin.parse("  \tsha256/\(base64)\n")
        XCTAssertEqual(pin.text, "sha256/\(base64)")
    }

    func testBase64WithoutPaddingIsAccepted() throws {
        let unpadded = base64.replacingOccurrences(of: "=", with: "")
        XCTAssertEqual(try Pin.parse("sha256/\(unpadded)").digest, digest)
    }

    func testWrongLengthsAreRejectedWithTheByteCount() {
        let short = Data(digest.prefix(20)).base64EncodedString()
        XCTAssertThrowsError(try Pin.parse("sha256/\(short)")) { error in
            XCTAssertEqual(error as? PinParseError, .wrongLength(20))
            XCTAssertEqual("\(error)", "digest is 20 bytes, a SHA-256 digest is 32")
        }
        XCTAssertThrowsError(try Pin.parse("cert:\(hex)00")) { error in
            XCTAssertEqual(error as? PinParseError, .wrongLength(33))
        }
    }

    func testMalformedPins() {
        let cases: [(String, PinParseError)] = [
            ("", .empty),
            ("   ", .empty),
            ("md5/abc", .unknownForm("md5/abc")),
            ("pin-sha256:\(base64)", .unknownForm("pin-sha256:")),
            ("sha256/!!!notbase64", .badBase64),
            ("cert:\(hex.dropLast())", .badHex),
            ("file:bundle.pem", .fileForm),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try Pin.parse(text), text) { error in
                XCTAssertEqual(error as? PinParseError, expected, text)
            }
        }
    }

    func testFormattingRoundTripsThroughTheParser() throws {
        let facts = CertificateFacts(
            subject: "CN=x", issuer: "CN=x", notBefore: Date(), notAfter: Date(), keyDescription: "RSA 2048",
            spkiSHA256: digest, keySHA256: digest.reversed(), certSHA256: digest.map { $0 ^ 0xFF })
        let forms = PinForms(facts)
        XCTAssertEqual(forms.sha256, "sha256/\(base64)")
        XCTAssertEqual(forms.spki, "spki:\(hex)")
        XCTAssertEqual(forms.cert, "cert:" + facts.certSHA256.map { String(format: "%02x", $0) }.joined())
        for text in forms.all {
            let pin = try Pin.parse(text)
            XCTAssertEqual(pin.digest, facts.digest(for: pin.kind), text)
        }
        XCTAssertEqual(PinText.hex([0xAB, 0x01], colons: true), "ab:01")
        XCTAssertEqual(PinText.hex([0xAB, 0x01], colons: false), "ab01")
    }
}
