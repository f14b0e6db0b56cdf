import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// A chain deeper than the collector judges is refused whole, never cut
/// short: a cut chain ends on an intermediate that would be labelled the
/// root and recommended as a pin.
final class DeepChainTests: XCTestCase {
    private var servers: [AnyObject] = []

    override func tearDown() {
        servers.removeAll()
    }

    /// A root, `intermediates` CAs each under the one before (no path
    /// length limit) and a leaf for api.test: `intermediates + 2` levels
    /// once verified; `served` is what the server sends (all but the root).
    private func hierarchy(intermediates: Int) throws -> (root: CertificateAuthority, leaf: IssuedCertificate, served: [X509Certificate]) {
        let root = try CertificateAuthority.makeRoot(commonName: "Deep Root")
        var authorities = [root]
        for depth in 1...intermediates {
            authorities.append(try authorities[authorities.count - 1].issueIntermediate(commonName: "Deep CA \(depth)", pathLength: nil))
        }
        let leaf = try authorities[authorities.count - 1].issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        return (root, leaf, [leaf.certificate] + authorities.dropFirst().reversed().map(\.certificate))
    }

    private func probeServed(intermediates: Int) throws -> (result: ProbeResult, root: CertificateAuthority) {
        let (root, leaf, served) = try hierarchy(intermediates: intermediates)
        let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: Array(served.dropFirst())))
        servers.append(server)
        let target = ProbeTarget(
            host: "api.test", port: server.port, serverName: "api.test", connectAddress: server.host,
            trust: .pem(root.certificate.pem), timeout: 5)
        return (try XCTUnwrap(ProbeEngine(concurrency: 1).run([target]).first), root)
    }

    func testAnEighteenLevelChainIsRefusedWithItsDepthNotCut() throws {
        let (result, _) = try probeServed(intermediates: 16)
        let failure = try XCTUnwrap(result.failure, "refused, not judged: \(result.chain.map(\.facts.subject))")
        XCTAssertEqual(failure.kind, .tls)
        XCTAssertEqual(failure.message, "the chain is 18 certificates deep (more than 16 is refused: no real chain is)")
        XCTAssertTrue(result.chain.isEmpty, "no level is kept to be labelled or pinned")
        let report = Verdict.report(for: HostConfig(host: "api.test"), result: result, now: Date(), warnDays: 21, criticalDays: 7)
        XCTAssertEqual(report.status, .error)
        XCTAssertNil(PinStanza.document(for: report), "nothing is recommended")
    }

    func testASixteenLevelChainIsKeptWholeWithItsRealRoot() throws {
        let (result, root) = try probeServed(intermediates: 14)
        XCTAssertNil(result.failure)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(result.chain.count, 16)
        let report = Verdict.report(for: HostConfig(host: "api.test"), result: result, now: Date(), warnDays: 21, criticalDays: 7)
        XCTAssertEqual(report.levels.last?.role, .root)
        XCTAssertEqual(report.levels.last?.certificate.facts.spkiSHA256, root.certificate.facts.spkiSHA256)
        XCTAssertEqual(report.levels.filter { $0.role == .root }.count, 1)
    }

    /// `preflight` verifies a chain nobody serves through the same collector.
    func testPreflightRefusesTheSameChainWithTheSameWords() throws {
        let (root, _, served) = try hierarchy(intermediates: 16)
        XCTAssertThrowsError(try ServedChain.result(of: served, serverName: "api.test", trust: .pem(root.certificate.pem))) { error in
            XCTAssertTrue("\(error)".contains("the chain is 18 certificates deep"), "\(error)")
        }
    }
}
