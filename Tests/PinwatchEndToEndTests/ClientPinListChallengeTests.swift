import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// WultraSSLPinning 1.9's challenge-signed list: a local HTTPS server (a
/// leaf of the fleet's PKI for localhost) reads the client's
/// `X-Cert-Pinning-Challenge`, signs `challenge + "&" + body` with a key
/// generated here and returns it in `X-Cert-Pinning-Signature`. Entries
/// carry a depth: api.test's chain is its leaf (0), the fleet's issuing
/// CA (1), the root from the trust store (2).
final class ClientPinListChallengeTests: LocalFleetTestCase {
    private var api: LocalFleet.Host!
    private var signer: PrivateKey!
    private var listKey = ""
    private let served = ServedList()

    /// What the server answers and what it was asked, across its loop thread.
    private final class ServedList: @unchecked Sendable {
        private let lock = NSLock()
        private var storedBody = ""
        private var storedSigner: PrivateKey?
        private var storedChallenges: [String] = []

        func set(body: String, signer: PrivateKey?) {
            lock.lock()
            defer { lock.unlock() }
            storedBody = body
            storedSigner = signer
        }

        var challenges: [String] {
            lock.lock()
            defer { lock.unlock() }
            return storedChallenges
        }

        func answer(_ request: [UInt8]) -> [UInt8]? {
            guard let end = request.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
            let head = String(decoding: request[..<end.lowerBound], as: UTF8.self)
            let prefix = "x-cert-pinning-challenge:"
            let challenge = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix(prefix) }
                .map { String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces) }
            lock.lock()
            defer { lock.unlock() }
            var headers = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(storedBody.utf8.count)\r\n"
            if let challenge, let signer = storedSigner,
                let signature = try? signer.signSHA256(Array("\(challenge)&\(storedBody)".utf8))
            {
                storedChallenges.append(challenge)
                headers += "X-Cert-Pinning-Signature: \(Data(signature).base64EncodedString())\r\n"
            }
            return Array((headers + "Connection: close\r\n\r\n" + storedBody).utf8)
        }
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        let host = try fleet.serveLeaf("api.test")
        api = fleet.add(LocalFleet.Host(name: "api.test", port: host.server.port, leafCertificate: host.leaf.certificate))
        signer = try PrivateKey.ecdsa(.p256)
        listKey = Data(signer.uncompressedPoint).base64EncodedString()
    }

    private func body(fingerprint: [UInt8], depth: Int) -> String {
        let expires = Int(Date().timeIntervalSince1970) + 90 * 86_400
        return "{\"fingerprints\":[{\"name\":\"api.test\",\"fingerprint\":\"\(Data(fingerprint).base64EncodedString())\","
            + "\"expires\":\(expires),\"depth\":\(depth)}],\"timestamp\":\(Int(Date().timeIntervalSince1970))}"
    }

    /// The list server, answering every connection with `served`.
    private func listURL() throws -> String {
        let leaf = try fleet.issuing.issueLeaf(commonName: "localhost", dnsNames: ["localhost"])
        let list = served
        let server = try fleet.keep(
            LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [fleet.issuing.certificate]), responder: { list.answer($0) }))
        return "https://localhost:\(server.port)/pins"
    }

    private func config(url: String) throws -> URL {
        try fleet.writeConfig(settings: ["clients:", "  - name: web", "    dynamic_list: {url: \"\(url)\", public_key: \"\(listKey)\"}"])
    }

    func testAListFromAURLIsVerifiedAgainstAFreshChallengeAndJudgedAtEachDepth() throws {
        served.set(body: body(fingerprint: fleet.issuing.certificate.facts.certSHA256, depth: 1), signer: signer)
        let config = try config(url: try listURL())
        let first = try fleet.run(["check", "--config", config.path, "--client", "web"])
        XCTAssertEqual(first.status, 0, "the issuing CA at depth 1 matches:\n\(first.stdout)\(first.stderr)")
        XCTAssertTrue(first.stdout.hasPrefix("PINWATCH OK"), first.stdout)
        _ = try fleet.run(["validate", "--config", config.path])
        let challenges = served.challenges
        XCTAssertEqual(challenges.count, 2, "each load fetches the list")
        XCTAssertNotEqual(challenges.first, challenges.last, "with a challenge of its own")
        XCTAssertEqual(challenges.compactMap { Data(base64Encoded: $0)?.count }, [16, 16])

        // The same certificate at the leaf's depth: the app refuses the chain.
        served.set(body: body(fingerprint: fleet.issuing.certificate.facts.certSHA256, depth: 0), signer: signer)
        let wrongDepth = try fleet.run(["check", "--config", config.path, "--client", "web"])
        XCTAssertEqual(wrongDepth.status, 2, "\(wrongDepth.stdout)\(wrongDepth.stderr)")
        XCTAssertTrue(wrongDepth.stdout.contains("api.test:\(api.port) CRITICAL blocked: web: pinned clients refuse"), wrongDepth.stdout)
        let lint = try fleet.run(["lint", "--config", config.path])
        XCTAssertTrue(
            lint.stdout.contains(
                "warning: web: api.test: a list entry's certificate is in the chain at another depth than the entry gives"), lint.stdout)

        served.set(body: body(fingerprint: fleet.root.certificate.facts.certSHA256, depth: 2), signer: signer)
        let root = try fleet.run(["check", "--config", config.path, "--client", "web"])
        XCTAssertEqual(root.status, 0, "the trust anchor is depth 2 of the chain the app builds:\n\(root.stdout)")
    }

    func testASignatureByAnotherKeyRefusesTheWholeList() throws {
        served.set(body: body(fingerprint: fleet.issuing.certificate.facts.certSHA256, depth: 1), signer: try PrivateKey.ecdsa(.p256))
        let url = try listURL()
        let outcome = try fleet.run(["validate", "--config", try config(url: url).path])
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("\(url): X-Cert-Pinning-Signature: does not verify over the challenge"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("the app refuses this list"), outcome.stderr)
    }

    /// A server that signs nothing serves a list the app refuses.
    func testAnUnsignedResponseIsRefused() throws {
        served.set(body: body(fingerprint: fleet.issuing.certificate.facts.certSHA256, depth: 1), signer: nil)
        let url = try listURL()
        let outcome = try fleet.run(["validate", "--config", try config(url: url).path])
        XCTAssertEqual(outcome.status, 2, outcome.stderr)
        XCTAssertTrue(
            outcome.stderr.contains(
                "\(url): fingerprints[0]: has no signature, and the response no X-Cert-Pinning-Signature: the app accepts neither"),
            outcome.stderr)
    }

    /// A body saved with the signature and challenge of its response, read
    /// by `clients:` and `import` without the server.
    func testASavedListIsVerifiedWithItsSignatureAndChallenge() throws {
        let saved = body(fingerprint: fleet.issuing.certificate.facts.certSHA256, depth: 1)
        try fleet.write(saved, to: "saved.json")
        let challenge = Data((0..<16).map { UInt8($0) }).base64EncodedString()
        let signature = Data(try signer.signSHA256(Array("\(challenge)&\(saved)".utf8))).base64EncodedString()
        let config = try fleet.writeConfig(settings: [
            "clients:", "  - name: web",
            "    dynamic_list: {file: saved.json, public_key: \"\(listKey)\", signature: \"\(signature)\", challenge: \"\(challenge)\"}",
        ])
        let check = try fleet.run(["check", "--config", config.path, "--client", "web"])
        XCTAssertEqual(check.status, 0, "\(check.stdout)\(check.stderr)")

        let imported = try fleet.run([
            "import", "saved.json", "--public-key", listKey, "--signature", signature, "--challenge", challenge,
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("fingerprints[0] (api.test, depth 1)"), imported.stdout)

        let replayed = try fleet.run([
            "import", "saved.json", "--public-key", listKey, "--signature", signature, "--challenge", "b3RoZXI=",
        ])
        XCTAssertEqual(replayed.status, 2)
        XCTAssertTrue(replayed.stderr.contains("saved.json: X-Cert-Pinning-Signature: does not verify"), replayed.stderr)

        let unsigned = try fleet.run(["import", "saved.json", "--public-key", listKey])
        XCTAssertEqual(unsigned.status, 2)
        XCTAssertTrue(
            unsigned.stderr.contains("fingerprints[0]: has no signature: a challenge-signed list is checked whole"), unsigned.stderr)
    }
}
