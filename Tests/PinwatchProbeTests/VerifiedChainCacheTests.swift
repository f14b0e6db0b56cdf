import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchTestSupport
import XCTest

@testable import PinwatchProbe

/// The verified-chain cache may only save work: whatever it serves must be
/// what a full verification would say. Each test verifies a chain once (a
/// miss that fills the cache), then presents what must not be served from
/// it, against real local servers.
final class VerifiedChainCacheTests: XCTestCase {
    private let clock = SettableClock()
    private lazy var engine = ProbeEngine(concurrency: 4, now: { [clock] in clock.now() })
    private var servers: [AnyObject] = []

    override func tearDown() {
        servers.removeAll()
    }

    private func keep<Server: AnyObject>(_ server: Server) -> Server {
        servers.append(server)
        return server
    }

    private func probe(_ target: ProbeTarget) -> ProbeResult {
        engine.run([target])[0]
    }

    func testTheSameChainIsServedFromTheCacheWithTheSameVerdict() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        let first = probe(.local(server, trust: pki.trust))
        XCTAssertTrue(first.trusted, first.trustError ?? "")
        XCTAssertEqual(engine.verifiedChainCounts.hits, 0)
        let second = probe(.local(server, trust: pki.trust))
        XCTAssertEqual(engine.verifiedChainCounts.hits, 1, "the second handshake skips the signature checks")
        XCTAssertTrue(second.trusted, second.trustError ?? "")
        XCTAssertEqual(second.chain.map(\.facts), first.chain.map(\.facts), "the same levels, the root from the store included")
        XCTAssertEqual(second.chain.map(\.fromServer), [true, true, false])
    }

    func testAnotherHostNameIsNeverServedFromTheCache() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        XCTAssertTrue(probe(.local(server, trust: pki.trust)).trusted)
        let other = probe(.local(server, trust: pki.trust, serverName: "other.test"))
        XCTAssertFalse(other.trusted, "the chain is cached for api.test, not for other.test")
        XCTAssertEqual(other.trustError, "hostname mismatch")
        XCTAssertEqual(engine.verifiedChainCounts.hits, 0)
        let ip = probe(ProbeTarget(host: "127.0.0.1", port: server.port, serverName: "127.0.0.2", trust: pki.trust))
        XCTAssertFalse(ip.trusted, "nor for an IP address the leaf does not name")
    }

    func testAnAlteredChainIsVerifiedInFull() throws {
        let pki = try TestPKI()
        let identity = try pki.identity()
        let good = keep(try LocalTLSServer(identity: identity))
        XCTAssertTrue(probe(.local(good, trust: pki.trust)).trusted)
        // The same leaf with one byte of its signature flipped: the key, names
        // and dates are unchanged, the bytes are not.
        var der = identity.chain[0].der
        der[der.count - 3] ^= 0x01
        let tampered = try X509Certificate(der: der)
        let bad = keep(try LocalTLSServer(identity: Identity(chain: [tampered] + identity.chain.dropFirst(), key: identity.key)))
        let result = probe(.local(bad, trust: pki.trust))
        XCTAssertFalse(result.trusted, "an altered certificate must fail its signature check")
        XCTAssertEqual(result.trustError, "certificate signature failure")
        XCTAssertEqual(engine.verifiedChainCounts.hits, 0)
    }

    func testACertificateThatExpiredSinceItWasVerifiedIsNotServed() throws {
        let pki = try TestPKI()
        let brief = ValidityWindow(notBefore: clock.now().addingTimeInterval(-3600), notAfter: clock.now().addingTimeInterval(600))
        let server = keep(try LocalTLSServer(identity: try pki.identity(validity: brief)))
        XCTAssertTrue(probe(.local(server, trust: pki.trust)).trusted)
        clock.advance(by: 601)
        let later = probe(.local(server, trust: pki.trust))
        XCTAssertFalse(later.trusted, "the cached verdict expired with the certificate")
        XCTAssertEqual(later.trustError, "certificate has expired")
        XCTAssertEqual(engine.verifiedChainCounts.hits, 0)
    }

    func testAnEntryOlderThanItsLifetimeIsVerifiedAgain() throws {
        let pki = try TestPKI()
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        XCTAssertTrue(probe(.local(server, trust: pki.trust)).trusted)
        clock.advance(by: VerifiedChainCache.lifetime - 1)
        XCTAssertTrue(probe(.local(server, trust: pki.trust)).trusted)
        XCTAssertEqual(engine.verifiedChainCounts.hits, 1, "younger than its lifetime: served")
        clock.advance(by: 2)
        let aged = probe(.local(server, trust: pki.trust))
        XCTAssertTrue(aged.trusted, aged.trustError ?? "")
        XCTAssertEqual(engine.verifiedChainCounts.hits, 1, "past its lifetime: verified in full again")
        XCTAssertEqual(engine.verifiedChainCounts.misses, 2)
    }

    func testAnotherTrustStoreHasItsOwnCache() throws {
        let pki = try TestPKI()
        let stranger = try TestPKI(name: "Some Other")
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        XCTAssertTrue(probe(.local(server, trust: pki.trust)).trusted)
        let elsewhere = probe(.local(server, trust: stranger.trust))
        XCTAssertFalse(elsewhere.trusted, "a chain trusted by one store is not trusted by another")
        XCTAssertEqual(engine.verifiedChainCounts.hits, 0)
    }

    func testAnUntrustedChainIsNeverCached() throws {
        let pki = try TestPKI()
        let stranger = try TestPKI(name: "Some Other")
        let server = keep(try LocalTLSServer(identity: try pki.identity()))
        for _ in 0..<2 {
            XCTAssertFalse(probe(.local(server, trust: stranger.trust)).trusted)
        }
        XCTAssertEqual(engine.verifiedChainCounts.hits, 0)
        XCTAssertEqual(engine.verifiedChainCounts.misses, 2)
    }
}
