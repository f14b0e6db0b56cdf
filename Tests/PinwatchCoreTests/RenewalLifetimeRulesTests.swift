import Foundation
import XCTest

@testable import PinwatchCore

/// Lifetime-based renewal estimates: the leaf already issued keeps its own
/// lifetime; the cap in force on its renewal (SC-081v3, or the family's
/// own schedule) binds the next leaf and is named. Every date is a parameter.
final class RenewalLifetimeRulesTests: XCTestCase {
    private let day: TimeInterval = 86_400

    private func utc(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)!
    }

    /// Let's Encrypt as a catalogue family: root key 3, intermediate key 2
    /// (the `Fixtures.chain` keys), 64 days from 2027-02-10, 45 from 2028-02-16.
    private func letsEncrypt(origin: String = "built-in") -> Catalogue {
        let certificate = { (name: String, key: UInt8) in
            CatalogueCertificate(name: name, facts: Fixtures.certificate("CN=\(name)", key: key).facts, file: "\(name).pem")
        }
        let family = CatalogueFamily(
            name: "letsencrypt", displayName: "Let's Encrypt", roots: [certificate("ISRG Root X1", 3)],
            intermediates: [CatalogueIntermediate(certificate: certificate("R11", 2), state: .active, root: "ISRG Root X1")],
            lifetimes: [
                LifetimeStep(from: utc("2027-02-10"), days: 64, source: "https://letsencrypt.org/"),
                LifetimeStep(from: utc("2028-02-16"), days: 45, source: "https://letsencrypt.org/"),
            ], origin: origin)
        return Catalogue(families: [family])
    }

    private let caKeys: [[UInt8]] = [Fixtures.digest(2), Fixtures.digest(3)]

    private func estimate(issued notBefore: Date, days lifetime: Double, now: Date, rules: [LifetimeRule]) -> RenewalEstimate {
        RenewalForecast.estimate(
            issued: [], notBefore: notBefore, notAfter: notBefore.addingTimeInterval(lifetime * day), now: now, rules: rules)
    }

    // MARK: SC-081v3

    func testALongLeafRenewingBeforeTheFirstCapKeepsItsOwnRhythm() {
        // 398 days from 2025-01-01: renewed at two thirds, 2025-09-23, before any cap.
        let notBefore = utc("2025-01-01")
        let estimate = estimate(issued: notBefore, days: 398, now: utc("2025-06-01"), rules: LifetimeRules.sc081v3)
        XCTAssertEqual(estimate.date, notBefore.addingTimeInterval(398 * day * 2 / 3))
        XCTAssertNil(estimate.rule)
        XCTAssertEqual(estimate.text, "renews ~2025-09-23 (estimated)")
    }

    func testACapShortensTheNextLeafNotTheOneAlreadyIssued() {
        // 398 days from 2026-02-27 (before the 200-day cap): the leaf keeps
        // its own lifetime, so it is renewed at two thirds of it
        // (2026-11-19), not four months earlier; the cap binds the leaf
        // issued then, and is named for it.
        let notBefore = utc("2026-02-27")
        let estimate = estimate(issued: notBefore, days: 398, now: utc("2026-04-01"), rules: LifetimeRules.sc081v3)
        XCTAssertEqual(estimate.date, notBefore.addingTimeInterval(398 * day * 2 / 3))
        XCTAssertEqual(estimate.rule, "SC-081v3 cap of 200 days from 2026-03-15")
        XCTAssertEqual(estimate.basis, .lifetime)
        XCTAssertEqual(estimate.text, "renews ~2026-11-19 (estimated; next leaf: SC-081v3 cap of 200 days from 2026-03-15)")
    }

    func testEachStepOfTheBallotBindsTheLeafIssuedFromItsDate() {
        // A 100-day leaf renewed before 2029-03-15 meets the cap in force
        // then; one renewed after it gives way to a 47-day leaf, at its
        // own renewal date all the same.
        let before = estimate(issued: utc("2028-10-01"), days: 100, now: utc("2028-10-02"), rules: LifetimeRules.sc081v3)
        XCTAssertNil(before.rule, "renewed 2028-12-06, under the 100-day cap it already meets")
        let after = estimate(issued: utc("2029-02-01"), days: 100, now: utc("2029-02-02"), rules: LifetimeRules.sc081v3)
        XCTAssertEqual(after.rule, "SC-081v3 cap of 47 days from 2029-03-15")
        XCTAssertEqual(after.date, utc("2029-02-01").addingTimeInterval(100 * day * 2 / 3))
    }

    func testALeafWithinTheCapIsUntouched() {
        let notBefore = utc("2027-06-01")
        let estimate = estimate(issued: notBefore, days: 90, now: utc("2027-06-02"), rules: LifetimeRules.sc081v3)
        XCTAssertEqual(estimate.date, notBefore.addingTimeInterval(60 * day))
        XCTAssertNil(estimate.rule)
    }

    func testAnOverdueSoonerRenewalIsDueNowNotInThePast() {
        let notBefore = utc("2026-02-27")
        let now = utc("2026-12-01")
        let estimate = estimate(issued: notBefore, days: 398, now: now, rules: LifetimeRules.sc081v3)
        XCTAssertEqual(estimate.date, now)
        XCTAssertEqual(estimate.days(from: now), 1)
    }

    // MARK: The family's own schedule

    func testLetsEncryptsSixtyFourDayProfileFromItsDate() {
        let rules = LifetimeRules.rules(forCAKeys: caKeys, catalogue: letsEncrypt())
        // Issued 2027-01-20 for 90 days: renewed at 60 days, 2027-03-21,
        // when the next leaf falls under the 64-day profile.
        let under = estimate(issued: utc("2027-01-20"), days: 90, now: utc("2027-01-21"), rules: rules)
        XCTAssertEqual(under.date, utc("2027-03-21"))
        XCTAssertEqual(under.rule, "Let's Encrypt's 64-day profile from 2027-02-10")
        // Issued 2026-11-01: next issuance 2026-12-31, before the profile changes.
        let before = estimate(issued: utc("2026-11-01"), days: 90, now: utc("2026-11-02"), rules: rules)
        XCTAssertEqual(before.date, utc("2026-12-31"))
        XCTAssertNil(before.rule)
    }

    func testLetsEncryptsFortyFiveDayProfileFromItsDate() {
        let rules = LifetimeRules.rules(forCAKeys: caKeys, catalogue: letsEncrypt())
        let before = estimate(issued: utc("2027-12-01"), days: 64, now: utc("2027-12-02"), rules: rules)
        XCTAssertNil(before.rule, "renewed 2028-01-04 on the 64-day profile it was issued on")
        let after = estimate(issued: utc("2028-01-20"), days: 64, now: utc("2028-01-21"), rules: rules)
        XCTAssertEqual(after.rule, "Let's Encrypt's 45-day profile from 2028-02-16")
        XCTAssertEqual(after.date, utc("2028-02-23"), "34 days after issuance, as its own 64 days say")
    }

    func testOnlyAKnownCAFollowsASchedule() {
        XCTAssertEqual(LifetimeRules.rules(forCAKeys: [Fixtures.digest(9)], catalogue: letsEncrypt()), [])
        let publicRules = LifetimeRules.rules(forCAKeys: caKeys, catalogue: letsEncrypt())
        XCTAssertEqual(publicRules.count, 5, "the ballot's three caps and the family's two steps")
        let privateRules = LifetimeRules.rules(forCAKeys: caKeys, catalogue: letsEncrypt(origin: "config"))
        XCTAssertEqual(privateRules.map(\.days), [64, 45], "a private PKI answers to its own schedule only")
    }

    // MARK: The leaf-only reason

    func testTheLeafOnlyReasonNamesTheRuleThatGaveTheDate() {
        let now = Fixtures.now
        let host = Fixtures.host(ca: [Fixtures.spkiPin(50)], leaf: [Fixtures.spkiPin(1)])
        let report = Fixtures.report(host, Fixtures.result(chain: Fixtures.chain()))
        let renewal = RenewalEstimate(
            date: now.addingTimeInterval(12 * day), basis: .lifetime, leafExpiry: now.addingTimeInterval(60 * day),
            rule: "SC-081v3 cap of 100 days from 2027-03-15")
        let annotated = report.with(history: HostHistory(renewal: renewal), now: now)
        XCTAssertEqual(
            annotated.reason,
            "only the leaf pin still matches: breaks in ~12 days (next leaf renewal: SC-081v3 cap of 100 days from 2027-03-15)"
                + " (leaf expires in 60 days)")
    }
}
