import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

@testable import PinwatchProbe

/// A new leaf under an intermediate verified before is verified by OpenSSL
/// from the leaf up to that intermediate only. Each test verifies one chain
/// in full (which makes its intermediate an anchor), then presents a new
/// leaf that a full verification would refuse, and requires the same
/// refusal, with nothing served through the anchor.
final class VerifiedIssuersTests: XCTestCase {
    private let clock = SettableClock()
    private lazy var engine = ProbeEngine(concurrency: 4, now: { [clock] in clock.now() })
    private var servers: [AnyObject] = []

    override func tearDown() {
        servers.removeAll()
    }

    private func serve(_ identity: Identity) throws -> LocalTLSServer {
        let server = try LocalTLSServer(identity: identity)
        servers.append(server)
        return server
    }

    private func probe(_ target: ProbeTarget) -> ProbeResult {
        engine.run([target])[0]
    }

    /// Verifies one chain of `pki` in full, so its intermediate is an anchor.
    private func verifyOnce(_ pki: TestPKI) throws -> ProbeResult {
        let first = probe(.local(try serve(try pki.identity()), trust: pki.trust))
        XCTAssertTrue(first.trusted, first.trustError ?? "")
        XCTAssertEqual(engine.verifiedChainCounts.misses, 1)
        return first
    }

    func testANewLeafUnderAVerifiedIntermediateGivesTheSameLevels() throws {
        let pki = try TestPKI()
        let first = try verifyOnce(pki)
        let second = probe(.local(try serve(try pki.identity()), trust: pki.trust))
        XCTAssertTrue(second.trusted, second.trustError ?? "")
        XCTAssertEqual(engine.verifiedChainCounts.anchored, 1, "the new leaf was checked up to the intermediate only")
        XCTAssertEqual(engine.verifiedChainCounts.misses, 1)
        XCTAssertEqual(second.chain.map(\.fromServer), [true, true, false])
        XCTAssertEqual(second.chain.dropFirst().map(\.facts), first.chain.dropFirst().map(\.facts), "intermediate and root as before")
        XCTAssertNotEqual(second.chain.first?.facts.certSHA256, first.chain.first?.facts.certSHA256, "the new leaf")
    }

    func testAnAnchorOlderThanItsLifetimeIsVerifiedInFullAgain() throws {
        let pki = try TestPKI()
        _ = try verifyOnce(pki)
        clock.advance(by: VerifiedChainCache.lifetime + 1)
        let later = probe(.local(try serve(try pki.identity()), trust: pki.trust))
        XCTAssertTrue(later.trusted, later.trustError ?? "")
        XCTAssertEqual(engine.verifiedChainCounts.anchored, 0, "the anchor aged out with the engine's clock")
        XCTAssertEqual(engine.verifiedChainCounts.misses, 2)
    }

    func testAServerThatLeavesOutTheIntermediateFailsAsInFull() throws {
        let pki = try TestPKI()
        _ = try verifyOnce(pki)
        let leafOnly = try pki.intermediate.issueLeaf(commonName: "api.test", dnsNames: ["api.test"])
        let result = probe(.local(try serve(Identity(leaf: leafOnly)), trust: pki.trust))
        XCTAssertFalse(result.trusted, "clients that were not sent the intermediate cannot build the chain")
        XCTAssertEqual(result.trustError, "unable to verify the first certificate")
        XCTAssertEqual(engine.verifiedChainCounts.anchored, 0)
    }

    func testALeafFromAnotherKeyWithTheSameNamesIsRefused() throws {
        let pki = try TestPKI()
        _ = try verifyOnce(pki)
        // The same subject names for root and intermediate, other keys.
        let impostor = try TestPKI()
        let result = probe(.local(try serve(try impostor.identity()), trust: pki.trust))
        XCTAssertFalse(result.trusted)
        XCTAssertEqual(engine.verifiedChainCounts.anchored, 0)
        XCTAssertEqual(engine.verifiedChainCounts.hits, 0)
    }

    func testANewLeafForAnotherNameOrExpiredIsRefused() throws {
        let pki = try TestPKI()
        _ = try verifyOnce(pki)
        let other = probe(.local(try serve(try pki.identity()), trust: pki.trust, serverName: "other.test"))
        XCTAssertFalse(other.trusted)
        XCTAssertEqual(other.trustError, "hostname mismatch")
        let past = ValidityWindow(notBefore: Date().addingTimeInterval(-7200), notAfter: Date().addingTimeInterval(-3600))
        let expired = probe(.local(try serve(try pki.identity(validity: past)), trust: pki.trust))
        XCTAssertFalse(expired.trusted)
        XCTAssertEqual(expired.trustError, "certificate has expired")
        XCTAssertEqual(engine.verifiedChainCounts.anchored, 0)
    }

    /// A root's name constraints bind every leaf below it; checking from
    /// the intermediate down would not see them, so such an intermediate
    /// is never an anchor.
    func testAnIntermediateUnderANameConstrainedRootIsNeverAnAnchor() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Constrained Root", nameConstraints: "permitted;DNS:api.test")
        let intermediate = try root.issueIntermediate(commonName: "Constrained Intermediate")
        let trust = TrustSource.pem(root.certificate.pem)
        func identity(_ name: String) throws -> Identity {
            Identity(leaf: try intermediate.issueLeaf(commonName: name, dnsNames: [name]), intermediates: [intermediate.certificate])
        }
        let allowed = probe(.local(try serve(try identity("api.test")), trust: trust))
        XCTAssertTrue(allowed.trusted, allowed.trustError ?? "")
        let outside = probe(.local(try serve(try identity("evil.test")), trust: trust, serverName: "evil.test"))
        XCTAssertFalse(outside.trusted, "evil.test is outside the root's permitted names")
        XCTAssertEqual(outside.trustError, "permitted subtree violation")
        let again = probe(.local(try serve(try identity("api.test")), trust: trust))
        XCTAssertTrue(again.trusted, again.trustError ?? "")
        XCTAssertEqual(engine.verifiedChainCounts.anchored, 0)
        XCTAssertEqual(engine.verifiedChainCounts.misses, 3)
    }
}
