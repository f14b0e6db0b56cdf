import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// `inspect` on a live local host and `pin` on files: every pin form, and
/// a stanza that really is a working configuration.
final class CommandsInspectPinTests: LocalFleetTestCase {

    func testInspectPrintsEveryLevelAndAStanzaThatWorks() throws {
        let (server, leaf) = try fleet.serveLeaf("shop.test")
        let outcome = try fleet.run([
            "inspect", "127.0.0.1:\(server.port)", "--sni", "shop.test", "--trust", fleet.trustURL.path, "--timeout", "5s",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(outcome.stdout.containsControlBytes)

        let chain = [leaf.certificate, fleet.issuing.certificate, fleet.root.certificate]
        for (index, certificate) in chain.enumerated() {
            let facts = certificate.facts
            XCTAssertTrue(outcome.stdout.contains(facts.subject), "level \(index) subject \(facts.subject)")
            XCTAssertTrue(outcome.stdout.contains("sha256/" + Data(facts.spkiSHA256).base64EncodedString()), "level \(index) sha256/")
            XCTAssertTrue(
                outcome.stdout.contains("spki:" + Self.hex(facts.spkiSHA256))
                    || outcome.stdout.contains("spki:" + Data(facts.spkiSHA256).base64EncodedString()),
                "level \(index) spki: form")
            XCTAssertTrue(
                outcome.stdout.contains(Data(facts.keySHA256).base64EncodedString()) || outcome.stdout.contains(Self.hex(facts.keySHA256)),
                "level \(index) key: digest")
            XCTAssertTrue(
                outcome.stdout.contains(Data(facts.certSHA256).base64EncodedString())
                    || outcome.stdout.contains(Self.hex(facts.certSHA256)), "level \(index) cert: digest")
        }
        for form in ["sha256/", "spki:", "key:", "cert:"] {
            XCTAssertGreaterThanOrEqual(
                outcome.stdout.components(separatedBy: form).count - 1, 3, "\(form) for each of 3 levels:\n\(outcome.stdout)")
        }
        let levelLines = outcome.stdout.split(separator: "\n").filter { $0.hasPrefix("level ") }
        XCTAssertEqual(levelLines.count, 3, outcome.stdout)
        XCTAssertTrue(levelLines.last?.contains("root") ?? false)
        XCTAssertTrue(levelLines.last?.contains("trust store") ?? false, "the root comes from the trust store: \(levelLines)")
        XCTAssertTrue(levelLines.first?.contains("sent by the server") ?? false)

        // The stanza, pasted into a config, makes the host ok.
        let stanza = try XCTUnwrap(outcome.stdout.range(of: "hosts:\n"), "a config stanza:\n\(outcome.stdout)")
        let pasted = String(outcome.stdout[stanza.lowerBound...])
        XCTAssertTrue(pasted.contains("sni: shop.test"), pasted)
        XCTAssertTrue(pasted.contains("trust: \"\(fleet.trustURL.path)\""), "the stanza names the trust it was checked with:\n\(pasted)")
        // Nothing added around it: the stanza alone probes as inspect did.
        let config = try fleet.write("timeout: 5s\n" + pasted, to: "pasted.yaml")
        let snapshot = try fleet.run(["snapshot", "--format", "json", "--config", config.path])
        XCTAssertEqual(snapshot.status, 0, "pasted stanza is a valid config: \(snapshot.stderr)\n\(pasted)")
        let host = try SnapshotJSON.decode(snapshot.stdout).host("127.0.0.1")
        XCTAssertEqual(host.status, "ok", "\(host.alerts) \(host.error.map { "\($0.kind) \($0.message)" } ?? "")")
        XCTAssertEqual(host.matchedTiers, ["ca", "leaf"])
    }

    /// A chain the store does not trust: no pins are suggested (pinning it
    /// would pin what no client accepts), and the stanza says why.
    func testInspectOfAnUntrustedChainSuggestsNoPinsAndSaysFixTheTrustFirst() throws {
        let (server, _) = try fleet.serveLeaf("shop.test")
        let outcome = try fleet.run(["inspect", "127.0.0.1:\(server.port)", "--sni", "shop.test", "--timeout", "5s"])
        let stanza = try XCTUnwrap(outcome.stdout.range(of: "hosts:\n"), "a config stanza:\n\(outcome.stdout)")
        let pasted = String(outcome.stdout[stanza.lowerBound...])
        XCTAssertTrue(pasted.contains("# the chain is not trusted ("), pasted)
        XCTAssertTrue(pasted.contains("fix the trust first; no pins to suggest"), pasted)
        XCTAssertFalse(pasted.contains("sha256/"), "the local root is in no system store: nothing to pin\n\(pasted)")
    }

    /// A host behind a `connect:` address: the stanza keeps it, and
    /// `--timeout` takes a duration like the configuration does.
    func testInspectStanzaKeepsTheConnectAddressAndTimeoutIsADuration() throws {
        let (server, _) = try fleet.serveLeaf("backend.test")
        let outcome = try fleet.run([
            "inspect", "backend.test:\(server.port)", "--connect", "127.0.0.1", "--trust", fleet.trustURL.path, "--timeout", "1500ms",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertTrue(
            outcome.stdout.contains("  - host: backend.test\n    port: \(server.port)\n    connect: \"127.0.0.1\"\n"), outcome.stdout)
        for bad in ["0", "1ms", "abc", "2h"] {
            let refused = try fleet.run(["inspect", "backend.test", "--timeout", bad])
            XCTAssertEqual(refused.status, 2, bad)
            XCTAssertTrue(refused.stderr.contains("--timeout must be a duration from 10ms to 10m"), refused.stderr)
        }
    }

    func testInspectJSONIsOneHostObject() throws {
        let (server, leaf) = try fleet.serveLeaf("shop.test")
        let outcome = try fleet.run([
            "inspect", "127.0.0.1:\(server.port)", "--sni", "shop.test", "--trust", fleet.trustURL.path, "--format", "json",
        ])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let stanza = try XCTUnwrap(object.removeValue(forKey: "stanza") as? String, "inspect's JSON carries the stanza")
        XCTAssertTrue(stanza.hasPrefix("hosts:\n  - host: \"127.0.0.1\"\n    port: \(server.port)\n    sni: shop.test\n"), stanza)
        XCTAssertTrue(stanza.contains(PinText.sha256(leaf.certificate.facts.spkiSHA256)), stanza)
        try SnapshotJSON.assertHostKeys(object)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let host = try decoder.decode(HostObject.self, from: Data(outcome.stdout.utf8))
        XCTAssertEqual(host.port, server.port)
        XCTAssertEqual(host.sni, "shop.test")
        XCTAssertTrue(host.trusted)
        XCTAssertEqual(host.status, "unpinned")
        XCTAssertEqual(host.chain.map(\.role), ["leaf", "intermediate", "root"])
        XCTAssertEqual(host.chain.map(\.fromServer), [true, true, false])
        XCTAssertEqual(host.chain.first?.certSha256, Self.hex(leaf.certificate.facts.certSHA256))
    }

    func testInspectOfARefusedPortIsAnErrorNotAHang() throws {
        let port = try LocalPorts.closedPort()
        let outcome = try fleet.run(["inspect", "127.0.0.1:\(port)", "--timeout", "3"])
        XCTAssertNotEqual(outcome.status, 0)
        XCTAssertTrue((outcome.stdout + outcome.stderr).contains("refused"), outcome.stdout + outcome.stderr)
    }

    func testPinListsEveryCertificateOfPEMAndDERFiles() throws {
        let leaf = try fleet.issuing.issueLeaf(commonName: "bundle.test", dnsNames: ["bundle.test"])
        let bundle = try fleet.write(leaf.certificate.pem + fleet.issuing.certificate.pem, to: "bundle.pem")
        let der = try fleet.write(fleet.root.certificate.der, to: "root.cer")

        let text = try fleet.run(["pin", bundle.path, der.path])
        XCTAssertEqual(text.status, 0, text.stderr)
        for certificate in [leaf.certificate, fleet.issuing.certificate, fleet.root.certificate] {
            let facts = certificate.facts
            XCTAssertTrue(text.stdout.contains(facts.subject), facts.subject)
            XCTAssertTrue(text.stdout.contains("sha256/" + Data(facts.spkiSHA256).base64EncodedString()), facts.subject)
        }

        let json = try fleet.run(["pin", bundle.path, der.path, "--format", "json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let files = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(files.map { $0["file"] as? String }, [bundle.path, der.path])
        let certificates = files.map { $0["certificates"] as? [[String: Any]] ?? [] }
        XCTAssertEqual(certificates.map(\.count), [2, 1])
        let expected = [[leaf.certificate.facts, fleet.issuing.certificate.facts], [fleet.root.certificate.facts]]
        for (listed, facts) in zip(certificates, expected) {
            for (entry, want) in zip(listed, facts) {
                XCTAssertEqual(entry["spki_sha256"] as? String, Data(want.spkiSHA256).base64EncodedString())
                XCTAssertEqual(entry["key_sha256"] as? String, Data(want.keySHA256).base64EncodedString())
                XCTAssertEqual(entry["cert_sha256"] as? String, Self.hex(want.certSHA256))
                XCTAssertEqual(entry["subject"] as? String, want.subject)
                let pins = entry["pins"] as? [String] ?? []
                XCTAssertTrue(pins.contains("sha256/" + Data(want.spkiSHA256).base64EncodedString()), "\(pins)")
                XCTAssertEqual(Set(pins.map { $0.prefix { $0 != "/" && $0 != ":" } }), ["sha256", "spki", "key", "cert"], "\(pins)")
            }
        }
    }

    func testPinRejectsMissingAndNonCertificateFiles() throws {
        let missing = fleet.directory.appendingPathComponent("absent.pem")
        let notACertificate = try fleet.write("just some notes\n", to: "notes.txt")
        let good = try fleet.write(fleet.root.certificate.pem, to: "root.pem")
        for (file, reason) in [(missing, "missing"), (notACertificate, "not a certificate")] {
            let outcome = try fleet.run(["pin", good.path, file.path])
            XCTAssertEqual(outcome.status, 2, "\(reason): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(file.lastPathComponent), "\(reason): the message names the file: \(outcome.stderr)")
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// `pin` on keys that are not in a certificate yet: backup pins.
final class CommandsPinKeyTests: LocalFleetTestCase {
    func testCertificateRequestsAndPublicKeysGiveBackupPins() throws {
        let key = try PrivateKey.ecdsa(.p256)
        let expected = PinText.sha256(key.subjectPublicKeyInfoSHA256)
        let csr = try fleet.write(try key.certificateRequestPEM(commonName: "next.example.com"), to: "next.csr")
        let csrDER = try fleet.write(try key.certificateRequestDER(commonName: "next.example.com"), to: "next.csr.der")
        let publicKey = try fleet.write(key.publicKeyPEM, to: "next.pub")
        let publicKeyDER = try fleet.write(key.subjectPublicKeyInfoDER, to: "next.pub.der")
        for file in [csr, csrDER, publicKey, publicKeyDER] {
            let outcome = try fleet.run(["pin", file.lastPathComponent])
            XCTAssertEqual(outcome.status, 0, "\(file.lastPathComponent): \(outcome.stderr)")
            XCTAssertTrue(outcome.stdout.contains("pins     \(expected)"), outcome.stdout)
            XCTAssertTrue(outcome.stdout.contains("        - \(expected)   # backup: \(file.lastPathComponent)"), outcome.stdout)
            XCTAssertFalse(outcome.stdout.contains("cert:"), "a key has no certificate digest")
        }
        XCTAssertTrue(try fleet.run(["pin", "next.csr"]).stdout.contains("from a certificate request CN=next.example.com"))

        let piped = try PinwatchBinary.runShell(
            "cat \(TmuxSession.quote(publicKey.path)) | \(TmuxSession.quote(PinwatchBinary.url.path)) pin - --format json")
        XCTAssertEqual(piped.status, 0, piped.stderr)
        let documents = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(piped.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(documents.first?["file"] as? String, "standard input")
        let keys = try XCTUnwrap(documents.first?["keys"] as? [[String: Any]])
        XCTAssertEqual((keys.first?["pins"] as? [String])?.first, expected)
    }

    /// A private key gives its public key's pins, says it was a private
    /// key, and never prints a line of it.
    func testPrivateKeysGiveThePinsOfTheirPublicKeyAndNeverThemselves() throws {
        for key in [try PrivateKey.ecdsa(.p256), try PrivateKey.rsa(bits: 2048)] {
            let expected = PinText.sha256(key.subjectPublicKeyInfoSHA256)
            for pem in [try key.pem, try key.traditionalPEM] {
                let label = pem.split(separator: "\n").first.map(String.init) ?? ""
                let file = try fleet.write(pem, to: "backup.key")
                let outcome = try fleet.run(["pin", file.lastPathComponent])
                XCTAssertEqual(outcome.status, 0, "\(label): \(outcome.stderr)")
                XCTAssertTrue(outcome.stdout.contains("pins     \(expected)"), "\(label): \(outcome.stdout)")
                XCTAssertTrue(outcome.stdout.contains("from a private key (only its public key is used)"), outcome.stdout)
                for line in pem.split(separator: "\n").dropFirst().dropLast() {
                    XCTAssertFalse(outcome.stdout.contains(line) || outcome.stderr.contains(line), "\(label): the key leaked")
                }
            }
        }
    }

    func testAFileThatHoldsNoKeyIsNamedOnce() throws {
        try fleet.write("hello\n", to: "notes.txt")
        let junk = try fleet.run(["pin", "notes.txt"])
        XCTAssertEqual(junk.status, 2)
        XCTAssertEqual(junk.stderr, "pinwatch: notes.txt: neither PEM nor a DER certificate; nor a certificate request or public key\n")
        let missing = try fleet.run(["pin", "missing.pem"])
        XCTAssertEqual(missing.stderr, "pinwatch: missing.pem: no such file\n", "the name once")
    }
}
