import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchMonitor
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// CRLs made by `openssl ca` and served over HTTP from 127.0.0.1: a chain's
/// levels looked up in them through the cache every host shares.
final class CRLLookupTests: XCTestCase {
    private var server: CRLServer!
    private var pki: RevocationPKI!

    override func setUpWithError() throws {
        let tools = ["/usr/bin/python3", "/usr/bin/openssl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        try TestEnvironment.require(tools, "python3 and openssl are needed to serve CRLs", skip: { XCTSkip($0) })
        let folder = try RevocationPKI.makeFolder()
        server = try CRLServer(folder: folder)
        pki = try RevocationPKI(folder: folder, crlURL: server.url("ca.crl"))
        try pki.issueLeaf("good")
        try pki.issueLeaf("revoked")
        try pki.revoke("revoked", reason: "keyCompromise")
        try pki.writeCRL("ca.crl", hours: 24)
    }

    override func tearDown() {
        server?.stop()
        pki = nil
        super.tearDown()
    }

    func testAGoodLeafIsGoodAndARevokedOneRevokedWithItsReasonAndDate() throws {
        let cache = CRLCache()
        let findings = try lookUp([subject("good"), subject("revoked")], cache: cache).revocation
        XCTAssertEqual(findings.count, 2)
        XCTAssertEqual(findings[0], RevocationFinding(level: 0, source: .crl(url: server.url("ca.crl")), outcome: .good))
        guard case .revoked(let reason, let date) = findings[1].outcome else { return XCTFail("\(findings[1])") }
        XCTAssertEqual(reason, "keyCompromise")
        XCTAssertLessThan(abs(date.timeIntervalSinceNow), 600, "revoked a moment ago: \(date)")
    }

    /// One fetch serves every host under the CA until its nextUpdate; past
    /// it, a CRL that cannot be fetched again leaves the old one, stale.
    func testTheCacheServesUntilNextUpdateThenTheOldCRLIsStale() throws {
        let clock = SettableClock()
        let cache = CRLCache(clock: clock.now)
        XCTAssertEqual(try lookUp([subject("good")], cache: cache).revocation.first?.outcome, .good)
        server.stop()
        XCTAssertEqual(try lookUp([subject("good")], cache: cache, timeout: 2).revocation.first?.outcome, .good, "from the cache")
        clock.advance(by: 25 * 3_600)
        let late = try lookUp([subject("good"), subject("revoked")], cache: cache, timeout: 2).revocation
        guard case .stale(let nextUpdate) = late[0].outcome else { return XCTFail("\(late[0])") }
        XCTAssertLessThan(nextUpdate, clock.now())
        guard case .revoked = late[1].outcome else { return XCTFail("a revocation stays one in a stale CRL: \(late[1])") }
    }

    func testACRLSignedByAnotherKeyIsUnavailableNeverRevoked() throws {
        try pki.writeCRL("impostor.crl", impostor: true)
        let findings = try lookUp([subject("revoked", url: server.url("impostor.crl"))], cache: CRLCache()).revocation
        XCTAssertEqual(findings.first?.outcome, .unavailable("its signature is not the issuer's"))
    }

    /// Time is the cache's parameter: a CRL read after its nextUpdate is stale.
    func testACRLPastItsNextUpdateIsStale() throws {
        try pki.writeCRL("short.crl", hours: 1)
        let clock = SettableClock(Date().addingTimeInterval(2 * 3_600))
        let findings = try lookUp([subject("good", url: server.url("short.crl"))], cache: CRLCache(clock: clock.now)).revocation
        guard case .stale(let nextUpdate) = findings.first?.outcome else { return XCTFail("\(findings)") }
        XCTAssertLessThan(nextUpdate, clock.now())
    }

    /// Measured alone: in the suite's process, a peak that earlier tests
    /// set would hide the one this lookup causes.
    func testA100MegabyteCRLIsRefusedAtTheBoundWithoutHoldingIt() throws {
        let measured = try MeasuredAlone.figures(of: Self.self) {
            let before = Self.peakResidentBytes()
            let findings = try lookUp([subject("good", url: server.url("huge.crl"))], cache: CRLCache(), timeout: 30).revocation
            XCTAssertEqual(findings.first?.outcome, .unavailable("the CRL is larger than 10 MiB (refused)"))
            return [Self.peakResidentBytes() - before]
        }
        guard let figures = measured else { return }
        // The bound is 10 MiB: a body read whole would have added 100 MB.
        XCTAssertLessThan(figures[0], 64 * 1_024 * 1_024, "the lookup raised the peak by \(figures[0]) bytes")
    }

    func testAServerThatStallsEndsAtTheTimeout() throws {
        let started = Date()
        let findings = try lookUp([subject("good", url: server.url("stall.crl"))], cache: CRLCache(), timeout: 1).revocation
        XCTAssertEqual(findings.first?.outcome, .unavailable("no CRL within 1 s"))
        XCTAssertLessThan(Date().timeIntervalSince(started), 4)
    }

    /// A CRL server that accepts and never answers holds no more than its
    /// share of the fetch slots, however many of its CRLs are asked for:
    /// another server's CRL is fetched beside it at once, and every lookup
    /// of the silent one ends at its deadline.
    func testAServerThatNeverAnswersHoldsUpNoOtherServersCRL() throws {
        let silent = try BlackHoleServer()
        defer { silent.stop() }
        let cache = CRLCache()
        let timeout: TimeInterval = 6
        let started = Date()
        // More of its CRLs than there are fetch slots in all.
        let stalled = try (0..<6).map { shard in
            try startLookUp([subject("good", url: "http://127.0.0.1:\(silent.port)/shard-\(shard).crl")], cache: cache, timeout: timeout)
        }
        let good = try lookUp([subject("good")], cache: cache, timeout: timeout)
        let goodTook = Date().timeIntervalSince(started)
        XCTAssertEqual(good.revocation.first?.outcome, .good)
        XCTAssertLessThan(goodTook, timeout / 2, "the other server's CRL waited for the silent one's fetches")
        XCTAssertLessThanOrEqual(silent.peakConcurrentConnections, CRLCache.Limits().fetchesPerServer)
        wait(for: stalled.map(\.done), timeout: timeout + 10)
        for lookup in stalled {
            XCTAssertEqual(lookup.delivered.get()?.revocation.first?.outcome, .unavailable("no CRL within 6 s"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), timeout + 3, "every stalled lookup ends at its deadline")
    }

    /// With a proxy configured, the CRL is fetched through it (the proxy
    /// is sent the whole URL): a name only the proxy can reach is looked up.
    func testACRLIsFetchedThroughTheConfiguredProxy() throws {
        let unreachable = "http://crl.pinwatch.invalid/ca.crl"
        let direct = try lookUp([subject("revoked", url: unreachable)], cache: CRLCache()).revocation
        guard case .unavailable = direct.first?.outcome else { return XCTFail("reached without a proxy: \(direct)") }
        let proxy = ProxySetting.url(ProxyRoute(scheme: .http, host: "127.0.0.1", port: server.port, source: "proxy:"))
        let findings = try lookUp([subject("revoked", url: unreachable)], cache: CRLCache(), proxy: proxy).revocation
        guard case .revoked(let reason, _) = findings.first?.outcome else { return XCTFail("\(findings)") }
        XCTAssertEqual(reason, "keyCompromise")
        XCTAssertEqual(server.requestTargets.filter { $0 == unreachable }.count, 1, "\(server.requestTargets)")
    }

    func testAMissingCRLIsUnavailable() throws {
        let findings = try lookUp([subject("good", url: server.url("missing.crl"))], cache: CRLCache()).revocation
        XCTAssertEqual(findings.first?.outcome, .unavailable("the server answered HTTP 404"))
    }

    /// The issuer key a CRL is verified with, and cached under, is the CA
    /// certificate's SubjectPublicKeyInfo as it carries it: its sha256 pin.
    func testTheIssuerKeyIsTheCAsOwnSubjectPublicKeyInfo() throws {
        let ca = try XCTUnwrap(X509Certificate.certificates(pem: String(contentsOf: pki.caCertificate, encoding: .utf8)).first)
        let subject = try subject("good")
        XCTAssertEqual(subject.issuerKeySHA256, ca.facts.spkiSHA256)
        XCTAssertEqual(SHA256Digest.of(subject.issuerKey), ca.facts.spkiSHA256)
    }

    // MARK: Helpers

    private func subject(_ leaf: String, url: String? = nil) throws -> RevocationSubject {
        let chain =
            try X509Certificate.certificates(pem: String(contentsOf: pki.file("\(leaf).pem"), encoding: .utf8))
            + X509Certificate.certificates(pem: String(contentsOf: pki.caCertificate, encoding: .utf8))
        var subject = try XCTUnwrap(RevocationSubjects.subjects(of: chain).first, "the leaf names its CRL")
        XCTAssertEqual(subject.crlURLs, [server.url("ca.crl")])
        if let url { subject.crlURLs = [url] }
        return subject
    }

    private func lookUp(
        _ subjects: [RevocationSubject], cache: CRLCache, timeout: TimeInterval = 5, proxy: ProxySetting = .off
    ) throws -> ProbeResult {
        let lookup = startLookUp(subjects, cache: cache, timeout: timeout, proxy: proxy)
        wait(for: [lookup.done], timeout: timeout + 10)
        return try XCTUnwrap(lookup.delivered.get())
    }

    /// A lookup under way: `done` is fulfilled when it delivers.
    private func startLookUp(
        _ subjects: [RevocationSubject], cache: CRLCache, timeout: TimeInterval, proxy: ProxySetting = .off
    ) -> (done: XCTestExpectation, delivered: Delivered) {
        var result = ProbeResult(trusted: true)
        result.revocationSubjects = subjects
        let lookup = RevocationLookup(cache: cache, timeout: timeout, proxy: proxy, environment: [:])
        let done = expectation(description: "looked up")
        let delivered = Delivered()
        lookup.complete(result, checks: true) { result in
            delivered.set(result)
            done.fulfill()
        }
        return (done, delivered)
    }

    private static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1_024
    }
}

private final class Delivered: @unchecked Sendable {
    private let lock = NSLock()
    private var result: ProbeResult?

    func set(_ value: ProbeResult) {
        lock.lock()
        result = value
        lock.unlock()
    }

    func get() -> ProbeResult? {
        lock.lock()
        defer { lock.unlock() }
        return result
    }
}
