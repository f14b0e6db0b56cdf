import PinwatchSystem
import XCTest

@testable import PinwatchCore

/// Each level's lifetime and the share of it used, and `renewal_overdue`:
/// a leaf past `renew_share` of its life, still served with days to
/// spare, is a renewal that failed. Every verdict here is decided at a
/// fixed clock.
final class CertificateLifetimeTests: XCTestCase {
    private typealias F = Fixtures
    private let day = Fixtures.day

    /// A 100-day leaf issued `issuedDaysAgo` days before `F.now`, under
    /// the fixtures' intermediate and root (key 3 pinned: status ok).
    private func chain(issuedDaysAgo: Double, lifetimeDays: Double = 100) -> [ChainCertificate] {
        var chain = F.chain()
        chain[0].facts.notBefore = F.now.addingTimeInterval(-issuedDaysAgo * day)
        chain[0].facts.notAfter = chain[0].facts.notBefore.addingTimeInterval(lifetimeDays * day)
        return chain
    }

    private func report(_ chain: [ChainCertificate], now: Date = Fixtures.now, renewShare: Double? = Config.defaultRenewShare)
        -> HostReport
    {
        Verdict.report(
            for: F.host(ca: [F.spkiPin(3)]), result: F.result(chain: chain), now: now, warnDays: 21, criticalDays: 7,
            renewShare: renewShare)
    }

    // MARK: The computation

    func testLifetimeAndShareUsedAtAFixedClock() {
        let notBefore = F.now.addingTimeInterval(-60 * day)
        // notAfter is inclusive: issuers add a second less (or more) than whole days.
        let lifetime = CertificateLifetime(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(90 * day - 1))
        XCTAssertEqual(lifetime.days, 90)
        XCTAssertEqual(lifetime.daysText, "90 days")
        XCTAssertEqual(lifetime.daysAdjective, "90-day")
        XCTAssertEqual(lifetime.used(at: F.now), 60 / 90, accuracy: 0.0001)
        XCTAssertEqual(CertificateLifetime.percent(lifetime.used(at: F.now)), "67%")
        XCTAssertEqual(lifetime.used(at: notBefore.addingTimeInterval(-day)), 0, "not yet valid: none used")
        XCTAssertEqual(lifetime.used(at: notBefore.addingTimeInterval(200 * day)), 1, "expired: all of it, no more")

        let shortLived = CertificateLifetime(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(160 * 3_600))
        XCTAssertEqual(shortLived.days, 6.67)
        XCTAssertEqual(shortLived.daysText, "6.7 days")
        XCTAssertEqual(CertificateLifetime(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(day)).daysText, "1 day")

        let inverted = CertificateLifetime(notBefore: notBefore, notAfter: notBefore.addingTimeInterval(-day))
        XCTAssertEqual(inverted.days, 0)
        XCTAssertEqual(inverted.used(at: F.now), 1)
    }

    func testEveryLevelCarriesTheShareUsedWhenTheVerdictWasDecided() {
        let decided = report(chain(issuedDaysAgo: 25))
        XCTAssertEqual(decided.levels[0].lifetime.days, 100)
        XCTAssertEqual(try XCTUnwrap(decided.levels[0].lifetimeUsed), 0.25, accuracy: 0.0001)
        // The fixtures' intermediate: issued 30 days before, 900 days left.
        XCTAssertEqual(try XCTUnwrap(decided.levels[1].lifetimeUsed), 30 / 930, accuracy: 0.0001)
        let later = report(chain(issuedDaysAgo: 25), now: F.now.addingTimeInterval(25 * day))
        XCTAssertEqual(try XCTUnwrap(later.levels[0].lifetimeUsed), 0.5, accuracy: 0.0001, "the clock decides, not the wall")
    }

    // MARK: renewal_overdue

    func testALeafPastTwoThirdsOfItsLifeIsRenewalOverdueWhateverItsDaysSay() {
        let overdue = report(chain(issuedDaysAgo: 70))
        XCTAssertEqual(overdue.status, .ok)
        XCTAssertEqual(overdue.alerts, [.renewalOverdue])
        XCTAssertEqual(overdue.severity, .warning)
        XCTAssertEqual(overdue.headline, .renewalOverdue)
        XCTAssertEqual(overdue.headlineText, "⚠ renewal_overdue")
        XCTAssertEqual(
            overdue.reason,
            "the leaf has used 70% of its 100-day lifetime and has not been renewed: renewal may be failing (30 days left)")
        XCTAssertEqual(overdue.daysLeft, 30, "30 days left: no expiry alert under warn_days 21")

        // The same leaf ten days earlier: 60% used, where renewers have not acted yet.
        let onTime = report(chain(issuedDaysAgo: 70), now: F.now.addingTimeInterval(-10 * day))
        XCTAssertEqual(onTime.alerts, [])
        XCTAssertEqual(onTime.severity, .ok)
        XCTAssertEqual(onTime.headline, .ok)
    }

    func testTheShareIsConfigurableAndOffRaisesNothing() {
        let leaf = chain(issuedDaysAgo: 70)
        XCTAssertEqual(report(leaf, renewShare: 0.8).alerts, [], "70% used is before a renewer set to 80%")
        XCTAssertEqual(report(leaf, renewShare: 0.5).alerts, [.renewalOverdue])
        XCTAssertEqual(report(leaf, renewShare: nil).alerts, [], "renew_share: off")
        XCTAssertEqual(report(leaf, renewShare: nil).severity, .ok)
    }

    /// Within warn_days the expiry alerts say it with the days and take
    /// over; an expired leaf is `expired`, not overdue.
    func testExpiryAlertsTakeOverWithinWarnDays() {
        let expiring = report(chain(issuedDaysAgo: 85))
        XCTAssertEqual(expiring.alerts, [.expiring])
        XCTAssertEqual(expiring.headline, .expiring)
        let expired = report(chain(issuedDaysAgo: 101))
        XCTAssertFalse(expired.alerts.contains(.renewalOverdue), "\(expired.alerts)")
    }

    /// Only the leaf is renewed by the host's renewer: an intermediate
    /// far into its life raises nothing.
    func testOnlyTheLeafIsJudged() {
        var leaf = chain(issuedDaysAgo: 10)
        leaf[1].facts.notBefore = F.now.addingTimeInterval(-900 * day)
        leaf[1].facts.notAfter = F.now.addingTimeInterval(100 * day)
        XCTAssertEqual(report(leaf).alerts, [])
    }

    /// An unpinned host's leaf is still the host's: the warning is a host
    /// fact, never a client release's finding.
    func testAnUnpinnedHostWarnsToo() {
        let unpinned = Verdict.report(
            for: F.host(), result: F.result(chain: chain(issuedDaysAgo: 70)), now: F.now, warnDays: 21, criticalDays: 7)
        XCTAssertEqual(unpinned.status, .unpinned)
        XCTAssertEqual(unpinned.severity, .warning)
        XCTAssertEqual(unpinned.headline, .renewalOverdue)
        XCTAssertTrue(HostHeadline.renewalOverdue.isHostFact)
    }

    /// A proxy's forged chain says nothing of the server's renewals.
    func testAnInterceptedChainIsNotJudged() {
        let route = ProxyRoute(scheme: .http, host: "127.0.0.1", port: 3128, source: "https_proxy")
        let intercepted = Verdict.report(
            for: F.host(ca: [F.spkiPin(3)]), result: F.result(chain: chain(issuedDaysAgo: 70), trusted: false, proxy: route),
            now: F.now, warnDays: 21, criticalDays: 7)
        XCTAssertTrue(intercepted.alerts.contains(.intercepted))
        XCTAssertFalse(intercepted.alerts.contains(.renewalOverdue), "\(intercepted.alerts)")
    }

    // MARK: Outputs

    func testJSONGivesEachLevelsLifetimeAndShareUsed() throws {
        let text = JSONReport.render([report(chain(issuedDaysAgo: 70))], generatedAt: F.now)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let host = try XCTUnwrap((document["hosts"] as? [[String: Any]])?.first)
        XCTAssertEqual(host["alerts"] as? [String], ["renewal_overdue"])
        XCTAssertEqual(host["headline"] as? String, "renewal_overdue")
        let chain = try XCTUnwrap(host["chain"] as? [[String: Any]])
        XCTAssertEqual(chain[0]["lifetime_days"] as? Double, 100)
        XCTAssertEqual(chain[0]["lifetime_used"] as? Double, 0.7)
        XCTAssertEqual(chain[1]["lifetime_days"] as? Double, 930)
        XCTAssertTrue(text.contains("\"lifetime_used\": 0.032,"), "fixed-point to the thousandth: \(text)")
    }

    /// Deprecated: with `deprecated_series: true` only; the share used is
    /// what `renewal_overdue` judges.
    func testMetricsGiveEachLevelsNotBeforeBesideItsNotAfterWithDeprecatedSeries() {
        let decided = report(chain(issuedDaysAgo: 70))
        XCTAssertFalse(
            PrometheusExposition.render([decided], cycle: nil, version: "0").contains("pinwatch_chain_level_not_before_timestamp_seconds"))
        let text = PrometheusExposition.render([decided], cycle: nil, version: "0", deprecatedSeries: true)
        let notBefore = Int(F.now.timeIntervalSince1970) - 70 * 86_400
        XCTAssertTrue(
            text.contains(
                "pinwatch_chain_level_not_before_timestamp_seconds{host=\"api.example.com\",port=\"443\",level=\"0\",role=\"leaf\"} \(notBefore)\n"
            ), text)
        XCTAssertTrue(text.contains("# TYPE pinwatch_chain_level_not_before_timestamp_seconds gauge\n"), text)
        XCTAssertTrue(text.contains("pinwatch_host_alert{host=\"api.example.com\",port=\"443\",alert=\"renewal_overdue\"} 1\n"), text)
    }

    func testTheDescriptionHasALifetimeLine() {
        let leaf = chain(issuedDaysAgo: 70)[0].facts
        let counted = CertificateDescription(leaf, daysLeft: 30, countedAt: F.now).rows
        XCTAssertEqual(counted.first { $0.label == "lifetime" }?.value, "100 days, 70% used")
        let uncounted = CertificateDescription(leaf, daysLeft: 30).rows
        XCTAssertEqual(uncounted.first { $0.label == "lifetime" }?.value, "100 days")
    }

    // MARK: renew_share

    private let path = NSTemporaryDirectory() + "pinwatch-renew-share/pinwatch.yaml"

    private func loader() -> ConfigLoader {
        ConfigLoader(
            certificateDigests: { path in throw ProxyURLError("\(path): no such file") },
            readText: { path, limit throws(RegularFile.ReadError) in try RegularFile.readText(path, limit: limit) })
    }

    func testRenewShareIsReadWithItsDefaultAndOff() throws {
        XCTAssertEqual(try loader().load(yaml: "hosts: []\n", path: path).renewShare, 2.0 / 3.0)
        XCTAssertEqual(try loader().load(yaml: "renew_share: 0.8\nhosts: []\n", path: path).renewShare, 0.8)
        XCTAssertNil(try loader().load(yaml: "renew_share: off\nhosts: []\n", path: path).renewShare)
    }

    func testAShareOutsideTheLifetimeIsAProblemOnItsLine() {
        for value in ["1", "0", "1.5", "-0.2", "two thirds", "nan"] {
            let found = loader().problems(ofYAML: "hosts: []\nrenew_share: \(value)\n", path: path)
            XCTAssertEqual(found.count, 1, "\(value): \(found)")
            XCTAssertEqual(found.first?.line, 2, value)
            XCTAssertEqual(found.first?.key, "renew_share", value)
            XCTAssertTrue(found.first?.message.contains("between 0 and 1") ?? false, "\(value): \(found)")
        }
    }
}
