import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `demo --snapshot`, and servers that send what no real CA would.
final class CommandsDemoAndHostileTests: LocalFleetTestCase {

    func testDemoSnapshotShowsEveryStatusOnItsHost() throws {
        let outcome = try PinwatchBinary.run(["demo", "--snapshot", "--format", "json"], currentDirectory: fleet.directory, timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        try SnapshotJSON.assertExactKeys(outcome.stdout)
        let document = try SnapshotJSON.decode(outcome.stdout)

        let expected: [(host: String, status: String, alert: String?)] = [
            ("payments.demo", "ok", nil),
            ("cdn.demo", "ok", nil),
            ("auth.demo", "leaf_only", "leaf_only"),
            ("legacy.demo", "blocked", "no_match"),
            ("mail.demo", "ok", "critical_expiry"),
            ("www.demo", "blocked", "expired"),
            ("staging.demo", "blocked", "untrusted"),
            ("inventory.demo", "unpinned", nil),
            ("gone.demo", "error", "probe_error"),
            ("api.demo", "ok", "proxy"),
            ("shop.demo", "ok", nil),
        ]
        XCTAssertEqual(Set(document.hosts.map(\.host)), Set(expected.map(\.host)))
        for (name, status, alert) in expected {
            let host = try document.host(name)
            XCTAssertEqual(host.status, status, "\(name): \(host.alerts) \(host.error.map { $0.message } ?? "")")
            if let alert { XCTAssertTrue(host.alerts.contains(alert), "\(name) alerts \(host.alerts) lack \(alert)") }
        }
        XCTAssertTrue(try document.host("api.demo").proxy.detected)
        XCTAssertFalse(try document.host("payments.demo").proxy.detected, "no_proxy keeps the others direct")
        XCTAssertEqual(try document.host("gone.demo").error?.kind, "timeout")
        XCTAssertEqual(try document.host("payments.demo").alerts, [])
        XCTAssertEqual(try document.host("staging.demo").chain.count, 1)
    }

    func testDemoSnapshotTextIsPlain() throws {
        let outcome = try PinwatchBinary.run(
            ["demo", "--snapshot", "--format", "text", "--width", "120"], currentDirectory: fleet.directory, timeout: 30)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertFalse(outcome.stdout.containsControlBytes)
        for name in ["payments.demo", "auth.demo", "legacy.demo", "gone.demo", "api.demo"] {
            XCTAssertTrue(outcome.stdout.contains(name), name)
        }
    }

    func testDemoSnapshotAsSVGAndHTMLForRunbooks() throws {
        let svg = try PinwatchBinary.run(
            ["demo", "--snapshot", "--format", "svg", "--width", "120"], currentDirectory: fleet.directory, timeout: 30)
        XCTAssertEqual(svg.status, 0, svg.stderr)
        XCTAssertTrue(svg.stdout.hasPrefix("<?xml"), String(svg.stdout.prefix(80)))
        XCTAssertTrue(XMLParser(data: Data(svg.stdout.utf8)).parse(), "the SVG is well-formed XML")
        let html = try PinwatchBinary.run(["demo", "--snapshot", "--format", "html"], currentDirectory: fleet.directory, timeout: 30)
        XCTAssertEqual(html.status, 0, html.stderr)
        for name in ["payments.demo", "auth.demo", "legacy.demo", "gone.demo", "api.demo"] {
            XCTAssertTrue(svg.stdout.contains(name), name)
            XCTAssertTrue(html.stdout.contains(name), name)
        }
        XCTAssertFalse(svg.stdout.containsControlBytes)
    }

    func testHostileChainsEndAsTLSErrors() throws {
        // 99 intermediates in a line above the leaf: 100 certificates sent.
        var authorities = [fleet.root]
        for number in 1...99 {
            authorities.append(try authorities[number - 1].issueIntermediate(commonName: "Deep CA \(number)", pathLength: nil))
        }
        let deepLeaf = try authorities[99].issueLeaf(commonName: "deep.test", dnsNames: ["deep.test"])
        let deepServer = fleet.keep(
            try LocalTLSServer(
                identity: Identity(
                    leaf: deepLeaf, intermediates: authorities.dropFirst().reversed().map(\.certificate))))
        fleet.add(LocalFleet.Host(name: "deep.test", port: deepServer.port, ca: [LocalFleet.pin(fleet.root.certificate)]))

        let (bigServer, _) = try fleet.serveLeaf("big.test", paddingBytes: 1_000_000)
        fleet.add(LocalFleet.Host(name: "big.test", port: bigServer.port, ca: [LocalFleet.pin(fleet.root.certificate)]))
        try fleet.addOK("fine.test")
        try fleet.writeConfig(timeout: "10s")

        let outcome = try fleet.run(["snapshot", "--format", "json"], timeout: 40)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try SnapshotJSON.decode(outcome.stdout)
        for name in ["deep.test", "big.test"] {
            let host = try document.host(name)
            XCTAssertEqual(host.status, "error", name)
            XCTAssertEqual(host.error?.kind, "tls", "\(name): \(host.error.map { "\($0.kind) \($0.message)" } ?? "no error")")
            XCTAssertEqual(host.chain.count, 0, name)
        }
        XCTAssertEqual(try document.host("fine.test").status, "ok", "one hostile host does not spoil the others")

        let check = try fleet.run(["check"], timeout: 40)
        XCTAssertEqual(check.status, 3, check.stdout)
        XCTAssertTrue(check.stdout.hasPrefix("PINWATCH UNKNOWN"), check.stdout)
    }
}
