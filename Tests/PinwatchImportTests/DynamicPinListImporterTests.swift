import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchImport

/// The list format and what counts; real ECDSA signatures are checked in
/// PinwatchProbeTests (SignedListSignatureTests) and end to end. Here a
/// "signature" is valid when it is `signed:` followed by the exact bytes
/// the format signs, so a list signed over other bytes is caught.
final class DynamicPinListImporterTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let key = [UInt8](repeating: 4, count: 65)

    private static let verify: DynamicPinListImporter.SignatureCheck = { message, signature, publicKey in
        publicKey.count == 65 && signature == Array("signed:".utf8) + message
    }

    private func entry(_ name: String, _ seed: UInt8, expires: Int, signedText: String? = nil) -> String {
        let fingerprint = ImportFixtures.base64(seed)
        let signed = signedText ?? "\(name)&\(fingerprint)&\(expires)"
        let signature = Data(Array("signed:".utf8) + Array(signed.utf8)).base64EncodedString()
        return "{\"name\": \"\(name)\", \"fingerprint\": \"\(fingerprint)\", \"expires\": \(expires), \"signature\": \"\(signature)\"}"
    }

    private func read(_ entries: [String]) throws(ClientSourceError) -> ImportedPins {
        try DynamicPinListImporter.read(
            ImportFixtures.bytes("{\"fingerprints\": [\(entries.joined(separator: ","))]}"), file: "pins.json", publicKey: key, now: now,
            verify: Self.verify)
    }

    func testValidEntriesBecomeCertificatePinsWithTheirExpiry() throws {
        let later = 1_800_000_000 + 30 * 86_400
        let pins = try read([entry("API.example.com", 1, expires: later), entry("api.example.com", 2, expires: later + 1)])
        XCTAssertEqual(pins.format, .dynamicList)
        XCTAssertEqual(pins.rules.map(\.domain), ["api.example.com", "api.example.com"])
        XCTAssertEqual(pins.rules[0].pins.map(\.kind), [.cert], "the fingerprint is of the whole certificate")
        XCTAssertEqual(pins.rules[0].pins.first?.digest, [UInt8](repeating: 1, count: 32))
        XCTAssertEqual(pins.rules[0].expiration, Date(timeIntervalSince1970: TimeInterval(later)))
        XCTAssertEqual(pins.rules[1].origin, "pins.json: fingerprints[1] (api.example.com)")
        XCTAssertEqual(pins.notes, [])
    }

    func testTamperedAndWronglySignedEntriesAreIgnoredAndReported() throws {
        let later = 1_800_000_000 + 30 * 86_400
        let fingerprint = ImportFixtures.base64(2)
        let pins = try read([
            entry("api.example.com", 1, expires: later),
            // Signed over other bytes: without the expiry, as a careless server might.
            entry("api.example.com", 2, expires: later, signedText: "api.example.com&\(fingerprint)"),
            // Signed for another host, then renamed.
            entry("evil.example.com", 3, expires: later, signedText: "api.example.com&\(ImportFixtures.base64(3))&\(later)"),
        ])
        XCTAssertEqual(pins.rules.map(\.pins.count), [1, 0, 0], "only the first entry carries a pin")
        XCTAssertEqual(
            pins.notes.map(\.origin), ["pins.json: fingerprints[1] (api.example.com)", "pins.json: fingerprints[2] (evil.example.com)"])
        XCTAssertTrue(pins.notes.allSatisfy { $0.message == "bad signature: entry ignored (the app ignores it too)" })
        let policy = ClientPolicy(name: "web", pins: pins)
        XCTAssertEqual(policy.concreteHosts, ["api.example.com"], "a host only a bad entry names is not dialled")
    }

    /// The same list checked with a key that is not the app's: no entry
    /// verifies. That imported as an empty stanza, exit 0.
    func testAListNoEntryOfWhichVerifiesIsAnErrorNamingTheKey() {
        let later = 1_800_000_000 + 30 * 86_400
        let list = ImportFixtures.bytes(
            "{\"fingerprints\": [\(entry("api.example.com", 1, expires: later)), \(entry("cdn.example.com", 2, expires: later))]}")
        let otherKey = [4] + [UInt8](repeating: 9, count: 64)
        let appKey = key
        let failure = ImportFixtures.error { () throws(ClientSourceError) in
            try DynamicPinListImporter.read(
                list, file: "pins.json", publicKey: otherKey, now: now,
                verify: { message, signature, publicKey in
                    publicKey == appKey && Self.verify(message, signature, publicKey)
                })
        }
        let keyText = EchoedInput.quoted(Data(otherKey).base64EncodedString())
        XCTAssertEqual(
            failure?.description,
            "pins.json: fingerprints: no entry's signature verifies with the public key \(keyText): "
                + "is it the key the app verifies this list with?")
        XCTAssertNotNil(try? read([]), "an empty list has no signature to fail")
    }

    func testAnExpiredEntryIsNotedAndStopsCounting() throws {
        let pins = try read([entry("api.example.com", 1, expires: 1_800_000_000 - 1)])
        XCTAssertEqual(pins.notes.count, 1)
        XCTAssertTrue(pins.notes[0].message.hasPrefix("expired 2027-01-15T07:59:59Z"), "\(pins.notes)")
        XCTAssertEqual(pins.rules.first?.expiration, Date(timeIntervalSince1970: 1_800_000_000 - 1))
    }

    func testBadInputNamesTheEntry() {
        let good = entry("a.example", 1, expires: 1)
        let cases: [(String, String)] = [
            ("{\"fingerprints\": [", "pins.json: malformed JSON"),
            ("{\"pins\": []}", "pins.json: fingerprints: missing or not an array"),
            ("{\"fingerprints\": [7]}", "pins.json: fingerprints[0]: is not an object"),
            ("{\"fingerprints\": [\(good), {\"name\": \"a.example\"}]}", "fingerprints[1]: needs name, fingerprint and expires"),
            (
                "{\"fingerprints\": [{\"name\": \"a\", \"fingerprint\": \"AA==\", \"expires\": \"soon\", \"signature\": \"\"}]}",
                "fingerprints[0].expires: expected unix seconds"
            ),
            (
                "{\"fingerprints\": [{\"name\": \"a\", \"fingerprint\": \"AAAA\", \"expires\": 1, \"signature\": \"\"}]}",
                "fingerprints[0] (a): fingerprint is not a base64 SHA-256 (32 bytes)"
            ),
        ]
        for (text, expected) in cases {
            let failure = ImportFixtures.error { () throws(ClientSourceError) in
                try DynamicPinListImporter.read(
                    ImportFixtures.bytes(text), file: "pins.json", publicKey: key, now: now, verify: Self.verify)
            }
            XCTAssertTrue(failure?.description.contains(expected) == true, "expected \(expected) in \(String(describing: failure))")
        }
    }

    func testAValidlySignedEntryMustStillNameAHost() {
        let failure = ImportFixtures.error { () throws(ClientSourceError) in try self.read([self.entry("bad host", 1, expires: 1)]) }
        XCTAssertEqual(failure?.description, "pins.json: fingerprints[0] (bad host): name is not a host name")
    }

    // MARK: challenge-signed lists (WultraSSLPinning 1.9)

    private func challengeSigned(_ body: String, challenge: String = "Q2hhbGxlbmdlIDE2IGJ5dGVz")
        -> DynamicPinListImporter.ChallengeSignature
    {
        let signature = Array("signed:".utf8) + Array("\(challenge)&\(body)".utf8)
        return DynamicPinListImporter.ChallengeSignature(challenge: challenge, signature: Data(signature).base64EncodedString())
    }

    private func readSigned(_ body: String, _ signed: DynamicPinListImporter.ChallengeSignature) throws(ClientSourceError)
        -> ImportedPins
    {
        try DynamicPinListImporter.read(
            ImportFixtures.bytes(body), file: "pins.json", publicKey: key, now: now, verify: Self.verify, signed: signed)
    }

    func testAChallengeSignedListIsCheckedWholeAndCarriesDepths() throws {
        let later = 1_800_000_000 + 30 * 86_400
        let body =
            "{\"fingerprints\":[{\"name\":\"api.example.com\",\"fingerprint\":\"\(ImportFixtures.base64(1))\",\"expires\":\(later),\"depth\":0},"
            + "{\"name\":\"api.example.com\",\"fingerprint\":\"\(ImportFixtures.base64(2))\",\"expires\":\(later),\"depth\":1},"
            + "{\"name\":\"api.example.com\",\"fingerprint\":\"\(ImportFixtures.base64(3))\",\"expires\":\(later)}],"
            + "\"timestamp\":1800000000}"
        let pins = try readSigned(body, challengeSigned(body))
        XCTAssertEqual(pins.rules.map(\.depth), [0, 1, 0], "no depth is the leaf, as in the SDK")
        XCTAssertEqual(pins.rules[1].origin, "pins.json: fingerprints[1] (api.example.com, depth 1)")
        XCTAssertEqual(pins.notes, [])

        let otherChallenge = challengeSigned(body, challenge: "b3RoZXI=")
        let replayed = DynamicPinListImporter.ChallengeSignature(challenge: "ZnJlc2g=", signature: otherChallenge.signature)
        let failure = ImportFixtures.error { () throws(ClientSourceError) in try self.readSigned(body, replayed) }
        XCTAssertTrue(
            failure?.description.hasPrefix(
                "pins.json: X-Cert-Pinning-Signature: does not verify over the challenge \"ZnJlc2g=\" and the body") == true,
            String(describing: failure))
        let tampered = ImportFixtures.error { () throws(ClientSourceError) in
            try self.readSigned(body.replacingOccurrences(of: "\"depth\":1", with: "\"depth\":2"), self.challengeSigned(body))
        }
        XCTAssertNotNil(tampered, "a changed body fails the signature")
    }

    func testAnEntryWithoutItsOwnSignatureNeedsTheChallengeSignature() {
        let body = "{\"fingerprints\":[{\"name\":\"a.example\",\"fingerprint\":\"\(ImportFixtures.base64(1))\",\"expires\":1}]}"
        let failure = ImportFixtures.error { () throws(ClientSourceError) in
            try DynamicPinListImporter.read(
                ImportFixtures.bytes(body), file: "pins.json", publicKey: self.key, now: self.now, verify: Self.verify)
        }
        XCTAssertEqual(
            failure?.description,
            "pins.json: fingerprints[0]: has no signature: a challenge-signed list is checked whole; fetch it from its URL, "
                + "or give the saved list's signature: and challenge:")
        let badDepth =
            "{\"fingerprints\":[{\"name\":\"a.example\",\"fingerprint\":\"\(ImportFixtures.base64(1))\",\"expires\":1,\"depth\":-1}]}"
        let depthFailure = ImportFixtures.error { () throws(ClientSourceError) in
            try self.readSigned(badDepth, self.challengeSigned(badDepth))
        }
        XCTAssertEqual(depthFailure?.description, "pins.json: fingerprints[0].depth: expected a chain level, 0 (the leaf) to 16")
    }
}
