import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// `pinwatch snapshot --format json` against local servers: every status,
/// every error kind, and DESIGN §8 field for field.
final class CommandsSnapshotJSONTests: LocalFleetTestCase {

    func testEveryChainVerdictIsReportedFieldForField() throws {
        let ok = try fleet.addOK("ok.test")
        let leafOnly = try fleet.addLeafOnly("leafonly.test")
        try fleet.addBlockedNoMatch("nomatch.test")
        try fleet.addUntrustedPinned("selfsigned.test")
        let unpinned = try fleet.addUnpinned("inventory.test")
        try fleet.addExpiring("expired.test", daysLeft: -2.5)
        try fleet.addExpiring("soon.test", daysLeft: 3.5)
        try fleet.addExpiring("warn.test", daysLeft: 15.5)
        try fleet.writeConfig(timeout: "5s")

        let outcome = try fleet.run(["snapshot", "--format", "json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try SnapshotJSON.assertExactKeys(outcome.stdout)
        let document = try SnapshotJSON.decode(outcome.stdout)

        XCTAssertEqual(document.version, 1)
        XCTAssertNotNil(SnapshotJSON.date(document.generatedAt), "generated_at is ISO 8601: \(document.generatedAt)")
        XCTAssertTrue(document.generatedAt.hasSuffix("Z"))
        XCTAssertEqual(document.hosts.map(\.host), fleet.hosts.map(\.name), "hosts in configuration order")
        XCTAssertEqual(document.summary.statusCounts, ["ok": 3, "leaf_only": 1, "blocked": 3, "error": 0, "unpinned": 1])

        // ok: leaf and intermediate sent, the root completed from the trust store.
        let okHost = try document.host("ok.test")
        XCTAssertEqual(okHost.status, "ok")
        XCTAssertEqual(okHost.port, ok.port)
        XCTAssertEqual(okHost.sni, "ok.test")
        XCTAssertEqual(okHost.address, "127.0.0.1")
        XCTAssertEqual(okHost.matchedTiers, ["ca"])
        XCTAssertEqual(okHost.alerts, [])
        XCTAssertTrue(okHost.trusted)
        XCTAssertNil(okHost.trustError)
        XCTAssertNil(okHost.error)
        XCTAssertFalse(okHost.proxy.detected)
        XCTAssertNil(okHost.proxy.source)
        XCTAssertNil(okHost.proxy.url)
        XCTAssertFalse(okHost.proxy.intercepted)
        XCTAssertGreaterThanOrEqual(okHost.elapsedMs, 0)
        XCTAssertEqual(okHost.leafDaysLeft, 59)
        let leafFacts = try XCTUnwrap(ok.leafCertificate).facts
        let leafNotAfter = try XCTUnwrap(SnapshotJSON.date(okHost.leafNotAfter))
        XCTAssertEqual(leafNotAfter.timeIntervalSince1970, leafFacts.notAfter.timeIntervalSince1970, accuracy: 1)

        let expected: [(role: String, fromServer: Bool, facts: CertificateFacts)] = [
            ("leaf", true, leafFacts),
            ("intermediate", true, fleet.issuing.certificate.facts),
            ("root", false, fleet.root.certificate.facts),
        ]
        XCTAssertEqual(okHost.chain.count, expected.count)
        for (index, (level, want)) in zip(okHost.chain, expected).enumerated() {
            XCTAssertEqual(level.level, index)
            XCTAssertEqual(level.role, want.role)
            XCTAssertEqual(level.fromServer, want.fromServer, "from_server of level \(index)")
            XCTAssertEqual(level.subject, want.facts.subject)
            XCTAssertEqual(level.issuer, want.facts.issuer)
            XCTAssertEqual(level.key, "ECDSA P-256")
            XCTAssertEqual(level.spkiSha256, Data(want.facts.spkiSHA256).base64EncodedString())
            XCTAssertEqual(level.keySha256, Data(want.facts.keySHA256).base64EncodedString())
            XCTAssertEqual(level.certSha256, Self.lowercaseHex(want.facts.certSHA256))
            XCTAssertNotNil(level.certSha256.range(of: "^[0-9a-f]{64}$", options: .regularExpression), level.certSha256)
            XCTAssertNotNil(SnapshotJSON.date(level.notBefore))
            XCTAssertEqual(
                try XCTUnwrap(SnapshotJSON.date(level.notAfter)).timeIntervalSince1970,
                want.facts.notAfter.timeIntervalSince1970, accuracy: 1)
        }
        XCTAssertEqual(okHost.chain.first?.subject, "CN=ok.test")
        XCTAssertEqual(okHost.chain.last?.matched.map(\.tier), ["ca"])
        XCTAssertEqual(okHost.chain.last?.matched.map(\.pin), ok.ca)
        XCTAssertEqual(okHost.chain.first?.matched.count, 0)

        let leafOnlyHost = try document.host("leafonly.test")
        XCTAssertEqual(leafOnlyHost.status, "leaf_only")
        XCTAssertEqual(leafOnlyHost.matchedTiers, ["leaf"])
        XCTAssertEqual(leafOnlyHost.alerts, ["leaf_only"])
        XCTAssertTrue(leafOnlyHost.trusted)
        XCTAssertEqual(leafOnlyHost.chain.first?.matched.map(\.pin), leafOnly.leaf)
        XCTAssertEqual(leafOnlyHost.chain.first?.matched.map(\.tier), ["leaf"])

        let noMatch = try document.host("nomatch.test")
        XCTAssertEqual(noMatch.status, "blocked")
        XCTAssertTrue(noMatch.trusted)
        XCTAssertEqual(noMatch.matchedTiers, [])
        XCTAssertEqual(noMatch.alerts, ["no_match"])
        XCTAssertEqual(noMatch.chain.last?.subject, fleet.world.otherRoot.certificate.facts.subject)
        XCTAssertTrue(noMatch.chain.allSatisfy { $0.matched.isEmpty })

        let selfSigned = try document.host("selfsigned.test")
        XCTAssertEqual(selfSigned.status, "blocked", "a matching pin does not pass an untrusted chain")
        XCTAssertFalse(selfSigned.trusted)
        XCTAssertNotNil(selfSigned.trustError)
        XCTAssertTrue(selfSigned.alerts.contains("untrusted"), "\(selfSigned.alerts)")
        XCTAssertEqual(selfSigned.chain.map(\.role), ["leaf"], "a single self-signed certificate is one leaf level")

        let inventory = try document.host("inventory.test")
        XCTAssertEqual(inventory.status, "unpinned")
        XCTAssertEqual(inventory.matchedTiers, [])
        XCTAssertEqual(inventory.chain.count, 3)
        XCTAssertEqual(
            inventory.chain.first?.spkiSha256, Data(try XCTUnwrap(unpinned.leafCertificate).facts.spkiSHA256).base64EncodedString())

        let expired = try document.host("expired.test")
        XCTAssertEqual(expired.status, "blocked")
        XCTAssertFalse(expired.trusted)
        XCTAssertEqual(expired.leafDaysLeft, -3, "floor of -2.5 days")
        XCTAssertTrue(expired.alerts.contains("expired"), "\(expired.alerts)")
        XCTAssertFalse(expired.alerts.contains("critical_expiry"), "only `expired` once the leaf is past notAfter")
        XCTAssertFalse(expired.alerts.contains("expiring"))

        let soon = try document.host("soon.test")
        XCTAssertEqual(soon.status, "ok")
        XCTAssertEqual(soon.leafDaysLeft, 3)
        // DESIGN §5 defines both thresholds as "≤", so 3 days left is both.
        XCTAssertEqual(Set(soon.alerts), ["expiring", "critical_expiry"])

        let warn = try document.host("warn.test")
        XCTAssertEqual(warn.status, "ok")
        XCTAssertEqual(warn.leafDaysLeft, 15)
        XCTAssertEqual(warn.alerts, ["expiring"])
    }

    func testEveryErrorKindCarriesAnEmptyChain() throws {
        let refused = try fleet.addRefused("refused.test")
        let blackHole = try fleet.addBlackHole("blackhole.test")
        try fleet.addPlaintext("plaintext.test")
        try fleet.addOK("fine.test")
        try fleet.writeConfig(timeout: "1s")

        let outcome = try fleet.run(["snapshot", "--format", "json"])
        XCTAssertEqual(outcome.status, 0, "the command ran, whatever the hosts' statuses: \(outcome.stderr)")
        try SnapshotJSON.assertExactKeys(outcome.stdout)
        let document = try SnapshotJSON.decode(outcome.stdout)
        XCTAssertEqual(document.hosts.map(\.host), ["refused.test", "blackhole.test", "plaintext.test", "fine.test"])
        XCTAssertEqual(document.summary.statusCounts, ["ok": 1, "leaf_only": 0, "blocked": 0, "error": 3, "unpinned": 0])
        XCTAssertEqual(document.summary.severity, ["critical": 0, "unknown": 3, "warning": 0, "ok": 1])
        XCTAssertEqual(try document.host("refused.test").severity, "unknown")
        XCTAssertTrue(try document.host("refused.test").reason.hasPrefix("probe failed (refused): "))
        XCTAssertGreaterThanOrEqual(blackHole.acceptedConnections, 1, "the probe reached the black hole")

        for (name, kind) in [("refused.test", "refused"), ("blackhole.test", "timeout"), ("plaintext.test", "tls")] {
            let host = try document.host(name)
            XCTAssertEqual(host.status, "error", name)
            XCTAssertEqual(host.error?.kind, kind, "\(name): \(String(describing: host.error))")
            XCTAssertFalse(host.error?.message.isEmpty ?? true, name)
            XCTAssertEqual(host.alerts, ["probe_error"], name)
            XCTAssertEqual(host.chain.count, 0, name)
            XCTAssertEqual(host.matchedTiers, [], name)
            XCTAssertFalse(host.trusted, name)
            XCTAssertNil(host.trustError, name)
            XCTAssertNil(host.leafDaysLeft, name)
            XCTAssertNil(host.leafNotAfter, name)
        }
        XCTAssertEqual(try document.host("refused.test").port, refused.port)
        XCTAssertEqual(try document.host("fine.test").status, "ok")
    }

    func testConfiguredProxyTunnelsAndRaisesTheProxyAlert() throws {
        let proxy = fleet.keep(try ConnectProxyServer())
        let ok = try fleet.addOK("tunnelled.test")
        try fleet.writeConfig(settings: ["proxy: http://127.0.0.1:\(proxy.port)"])

        let outcome = try fleet.run(["snapshot", "--format", "json"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let host = try SnapshotJSON.decode(outcome.stdout).host("tunnelled.test")
        XCTAssertEqual(host.status, "ok", "the proxy does not change the status")
        XCTAssertTrue(host.proxy.detected)
        XCTAssertEqual(host.proxy.url, "http://127.0.0.1:\(proxy.port)")
        XCTAssertNotNil(host.proxy.source)
        XCTAssertFalse(host.proxy.intercepted, "the tunnelled chain matches its pin")
        XCTAssertTrue(host.alerts.contains("proxy"), "\(host.alerts)")
        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(ok.port)"], "`connect:` is the CONNECT target")
    }

    func testProxyCredentialsAreNeverPrinted() throws {
        let proxy = fleet.keep(try ConnectProxyServer())
        try fleet.addOK("tunnelled.test")
        try fleet.addRefused("refused.test")
        try fleet.writeConfig(settings: ["proxy: http://user:secret@127.0.0.1:\(proxy.port)"], timeout: "2s")

        var checked = 0
        for arguments in [
            ["snapshot", "--format", "json"], ["snapshot", "--format", "text", "--width", "160"],
            ["snapshot", "--format", "ansi", "--width", "160"], ["check"],
        ] {
            let outcome = try fleet.run(arguments)
            XCTAssertFalse(outcome.stdout.isEmpty, "\(arguments) printed nothing: \(outcome.stderr)")
            XCTAssertFalse(outcome.stdout.contains("secret"), "\(arguments) leaked the password on stdout")
            XCTAssertFalse(outcome.stderr.contains("secret"), "\(arguments) leaked the password on stderr")
            checked += 1
        }
        XCTAssertEqual(checked, 4)
        XCTAssertFalse(proxy.connectTargets.isEmpty, "the probes went through the proxy")

        // The environment path, through `inspect`, in both of its formats.
        let target = try XCTUnwrap(fleet.hosts.first)
        for format in ["text", "json"] {
            let outcome = try fleet.run(
                ["inspect", "127.0.0.1:\(target.port)", "--sni", target.name, "--trust", fleet.trustURL.path, "--format", format],
                environment: ["https_proxy": "http://user:secret@127.0.0.1:\(proxy.port)"])
            XCTAssertEqual(outcome.status, 0, "inspect \(format): \(outcome.stderr)")
            XCTAssertTrue(outcome.stdout.contains("127.0.0.1:\(proxy.port)"), "inspect \(format) names the proxy: \(outcome.stdout)")
            XCTAssertFalse(outcome.stdout.contains("secret"), "inspect \(format) leaked the password on stdout")
            XCTAssertFalse(outcome.stderr.contains("secret"), "inspect \(format) leaked the password on stderr")
        }
        XCTAssertTrue(proxy.connectTargets.contains("127.0.0.1:\(target.port)"))
    }

    func testEnvironmentProxyHonoursNoProxy() throws {
        let proxy = fleet.keep(try ConnectProxyServer())
        let via = try fleet.addOK("via.test")
        let direct = try fleet.addOK("direct.test")
        try fleet.writeConfig()

        let outcome = try fleet.run(
            ["snapshot", "--format", "json"],
            environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": "example.org,direct.test"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try SnapshotJSON.decode(outcome.stdout)

        let viaHost = try document.host("via.test")
        XCTAssertTrue(viaHost.proxy.detected)
        XCTAssertEqual(viaHost.proxy.source, "https_proxy")
        XCTAssertEqual(viaHost.proxy.url, "http://127.0.0.1:\(proxy.port)")
        XCTAssertTrue(viaHost.alerts.contains("proxy"))
        XCTAssertEqual(viaHost.status, "ok")

        let directHost = try document.host("direct.test")
        XCTAssertFalse(directHost.proxy.detected, "no_proxy excludes direct.test")
        XCTAssertNil(directHost.proxy.url)
        XCTAssertFalse(directHost.alerts.contains("proxy"))
        XCTAssertEqual(directHost.status, "ok")

        XCTAssertEqual(proxy.connectTargets, ["127.0.0.1:\(via.port)"], "only via.test went through the proxy")
        XCTAssertFalse(proxy.connectTargets.contains("127.0.0.1:\(direct.port)"))
    }

    static func lowercaseHex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
