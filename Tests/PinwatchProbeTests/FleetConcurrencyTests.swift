import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// The engine against a fleet of local servers, counted from the servers'
/// side: every result belongs to the right host, and no more sockets are
/// open at once, over all servers together, than the engine's concurrency.
final class FleetConcurrencyTests: XCTestCase {
    private static let fleetSize = 300
    private static let concurrency = 16

    func testCycleOverThreeHundredHostsKeepsAtMostConcurrencySocketsOpen() throws {
        let pki = try TestPKI()
        let names = (0..<Self.fleetSize).map { "host\($0).test" }
        let leaves = try names.map { try pki.intermediate.issueLeaf(commonName: $0, dnsNames: [$0]) }
        let fleet = try leaves.map { try LocalTLSServer(identity: Identity(leaf: $0, intermediates: [pki.intermediate.certificate])) }
        defer { fleet.forEach { $0.stop() } }
        let targets = zip(names, fleet).map { name, server in
            ProbeTarget(host: name, port: server.port, serverName: name, connectAddress: server.host, trust: pki.trust, timeout: 10)
        }
        XCTAssertTrue(eventually { LocalServerTotals.openConnections == 0 }, "an earlier test left connections open")
        LocalServerTotals.restartPeak()

        let results = ProbeEngine(concurrency: Self.concurrency).run(targets)

        XCTAssertEqual(results.count, Self.fleetSize)
        let failures = results.compactMap(\.failure)
        XCTAssertTrue(failures.isEmpty, "\(failures.count) failed, first: \(failures.first.map(String.init(describing:)) ?? "")")
        for (index, result) in results.enumerated() {
            XCTAssertTrue(result.trusted, "\(names[index]): \(result.trustError ?? "no trust verdict")")
            XCTAssertEqual(result.chain.count, 3, names[index])
            XCTAssertEqual(
                result.chain.first?.facts.spkiSHA256, leaves[index].certificate.facts.spkiSHA256,
                "\(names[index]) got another host's leaf")
        }
        XCTAssertEqual(fleet.map(\.acceptedConnections), Array(repeating: 1, count: Self.fleetSize))
        XCTAssertTrue(eventually { LocalServerTotals.openConnections == 0 })
        let peak = LocalServerTotals.peakConcurrentConnections
        XCTAssertLessThanOrEqual(peak, Self.concurrency)
        XCTAssertGreaterThan(peak, 1, "300 probes with 16 slots overlap")
    }

    func testTotalsCountSocketsHeldAcrossServers() throws {
        let identity = try TestPKI().identity()
        let first = try LocalTLSServer(identity: identity)
        let second = try LocalTLSServer(identity: identity)
        defer {
            first.stop()
            second.stop()
        }
        XCTAssertTrue(eventually { LocalServerTotals.openConnections == 0 }, "an earlier test left connections open")
        LocalServerTotals.restartPeak()
        let acceptedBefore = LocalServerTotals.acceptedConnections

        var held = try (0..<2).map { _ in try BlockingSocket(port: first.port) }
        held += try (0..<3).map { _ in try BlockingSocket(port: second.port) }
        XCTAssertTrue(eventually { LocalServerTotals.openConnections == 5 })
        held.forEach { $0.close() }
        held.removeAll()
        XCTAssertTrue(eventually { LocalServerTotals.openConnections == 0 })
        // Closed, then reopened right away: the close is counted before the
        // next accept, so the peak stays at what was held together.
        for _ in 0..<5 {
            try BlockingSocket(port: first.port).close()
        }
        XCTAssertTrue(eventually { LocalServerTotals.acceptedConnections == acceptedBefore + 10 })
        XCTAssertTrue(eventually { LocalServerTotals.openConnections == 0 })
        XCTAssertEqual(LocalServerTotals.peakConcurrentConnections, 5)
        XCTAssertEqual(first.peakConcurrentConnections, 2)
        XCTAssertEqual(second.peakConcurrentConnections, 3)
    }
}
