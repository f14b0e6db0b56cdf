import Foundation
import PinwatchCore
import PinwatchProbe
import XCTest

@testable import PinwatchCatalogue

/// Real public leaves (Fixtures/SOURCES.md) judged with the built-in
/// catalogue at a date inside their validity: today's verdict and every
/// next chain's come from the path a client builds, so they agree with
/// what a pinning client does and with each other.
final class RealChainVerdictTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    private func day(_ text: String) -> Date { ISO8601DateFormatter().date(from: text + "T12:00:00Z")! }

    private func certificates(_ path: String) throws -> [CertificateFacts] {
        try CertificateReader.certificates(inFile: path).map(\.facts)
    }

    private func fixture(_ name: String) throws -> [CertificateFacts] { try certificates("\(Self.fixtures)/chains/\(name)") }
    private func catalogued(_ path: String) throws -> CertificateFacts {
        try XCTUnwrap(try certificates("\(RepositoryCatalogue.folder)/\(path)").first, path)
    }

    private func pin(_ facts: CertificateFacts) -> Pin {
        Pin(kind: .spki, digest: facts.spkiSHA256, text: PinText.sha256(facts.spkiSHA256))
    }

    /// The verified chain as OpenSSL builds it on the system store: what
    /// the server sent, then the store's root.
    private func report(served: [CertificateFacts], anchor: CertificateFacts, pins: [Pin], on date: Date) throws -> HostReport {
        let chain = served.map { ChainCertificate(facts: $0, fromServer: true) } + [ChainCertificate(facts: anchor, fromServer: false)]
        let result = ProbeResult(address: "127.0.0.1", chain: chain, sentCount: served.count, trusted: true, finishedAt: date)
        return Verdict.report(
            for: HostConfig(host: "real.test", pins: PinSet(ca: pins)), result: result, now: date, warnDays: 21, criticalDays: 7,
            catalogue: try CatalogueLoader.load(sources: [], userFolder: nil))
    }

    private func vias(_ next: NextChains?, _ scenario: NextChainScenario, survives: Bool?) -> [String] {
        (next?.chains(scenario) ?? []).filter { $0.survives == survives }.map(\.via)
    }

    // MARK: Let's Encrypt

    func testAnX1PinOnAnR10LeafSurvivesTheRotationAndGenerationYThroughTheCrossSign() throws {
        let served = try fixture("le-r10-gleap-io.pem") + [catalogued("letsencrypt/r10-9d7c3f1a.pem")]
        let x1 = try catalogued("letsencrypt/isrg-root-x1.pem")
        let report = try report(served: served, anchor: x1, pins: [pin(x1)], on: day("2025-04-15"))
        XCTAssertEqual(report.status, .ok)
        XCTAssertEqual(report.alerts, [], report.reason)
        let next = try XCTUnwrap(report.nextChains)
        XCTAssertEqual(vias(next, .intermediateRotation, survives: true), ["R11", "R12", "R13", "R14"])
        let generationY = try XCTUnwrap(next.chains(.rootTransition).first)
        XCTAssertEqual(generationY.survives, true, "YRn ← Root YR ← ISRG Root X1: X1 is on the client's path")
        XCTAssertEqual(
            generationY.paths.map { $0.certificates.map(\.name) },
            [["YR1", "Root YR", "ISRG Root X1"], ["YR2", "Root YR", "ISRG Root X1"], ["YR3", "Root YR", "ISRG Root X1"]])
        XCTAssertEqual(
            generationY.reason,
            "survives on stores without Root YR, which is every store this data knows of (data of 2026-08-21); "
                + "breaks where a store adds it: pin Root YR too")
        XCTAssertEqual(next.recommended.map(\.subject), ["Root YR"], "a forward pin, not a break")
    }

    func testAnR10PinIsWarnedAndToldToPinX1() throws {
        let r10 = try catalogued("letsencrypt/r10-9d7c3f1a.pem")
        let served = try fixture("le-r10-gleap-io.pem") + [r10]
        let report = try report(
            served: served, anchor: try catalogued("letsencrypt/isrg-root-x1.pem"), pins: [pin(r10)], on: day("2025-04-15"))
        XCTAssertEqual(report.alerts, [.intermediatePool, .rootTransition])
        XCTAssertEqual(vias(report.nextChains, .intermediateRotation, survives: false), ["R11", "R12", "R13", "R14"])
        // X1 carries the pool; Root YR's key (its cross-sign now, the root
        // once a store holds it) carries Generation Y.
        XCTAssertEqual(Set(report.nextChains?.recommended.map(\.subject) ?? []), ["ISRG Root X1", "Root YR"])
    }

    func testAfterTheClassicPoolRetiredTheRotationIsGenerationYs() throws {
        let served = try fixture("le-r10-gleap-io.pem") + [catalogued("letsencrypt/r10-9d7c3f1a.pem")]
        let x1 = try catalogued("letsencrypt/isrg-root-x1.pem")
        // The same chain judged on 2026-08-21, after the leaf's expiry (no
        // public R10 leaf of that date was found), for the pool in force:
        // R10–R14 retired on 2026-07-08.
        let report = try report(served: served, anchor: x1, pins: [pin(x1)], on: day("2026-08-21"))
        let next = try XCTUnwrap(report.nextChains)
        XCTAssertEqual(next.chains(.intermediateRotation).map(\.via), ["YR1", "YR2", "YR3"])
        XCTAssertEqual(vias(next, .intermediateRotation, survives: true), ["YR1", "YR2", "YR3"])
        XCTAssertEqual(next.chains(.rootTransition), [], "Generation Y is in force, no longer announced")
        XCTAssertEqual(report.alerts, [.expired], "the leaf's own expiry, nothing of the next chains")
    }

    func testAnX2PinOnTheDefaultE6ChainIsBlockedAndCarriesNoNextChain() throws {
        let leaf = try fixture("le-e6-letsencrypt-org.pem")
        let e6ByX1 = try catalogued("letsencrypt/e6-76e9e288.pem")
        let x1 = try catalogued("letsencrypt/isrg-root-x1.pem")
        let x2 = try catalogued("letsencrypt/isrg-root-x2.pem")
        let blocked = try report(served: leaf + [e6ByX1], anchor: x1, pins: [pin(x2)], on: day("2025-07-01"))
        XCTAssertEqual(blocked.status, .blocked)
        let next = try XCTUnwrap(blocked.nextChains)
        XCTAssertEqual(next.survives(.leafRenewal), false, "the same path as today's: the X2 pin is not on it")
        XCTAssertEqual(next.survives(.intermediateRotation), false)
        // Generation Y's ECDSA chain (YE1 ← Root YE ← ISRG Root X2) does put
        // X2 on the path, but a host refused today has no next chain
        // "carried by" a pin that fails today: unjudged, with what it would match.
        XCTAssertTrue(next.chains.allSatisfy { $0.carriedBy.isEmpty }, "\(next.chains)")
        let wouldMatch = next.chains.filter { $0.reason?.contains("a pin no level matches now") == true }
        XCTAssertEqual(wouldMatch.map(\.via), ["Generation Y"])
        XCTAssertEqual(wouldMatch.first?.survives, nil)
        XCTAssertEqual(
            wouldMatch.first?.reason,
            "clients refuse the host today; this chain would put \(pin(x2).text), a pin no level matches now, on their path")
        XCTAssertEqual(next.recommended.first?.subject, "ISRG Root X1")

        let pinnedX1 = try report(served: leaf + [e6ByX1], anchor: x1, pins: [pin(x1)], on: day("2025-07-01"))
        XCTAssertEqual(pinnedX1.status, .ok)
        XCTAssertEqual(vias(pinnedX1.nextChains, .intermediateRotation, survives: true), ["E5", "E7", "E8", "E9"])
    }

    func testTheShortE6ChainMatchesX2OnDebianAndIsRefusedOnAStoreWithoutX2() throws {
        let leaf = try fixture("le-e6-letsencrypt-org.pem")
        let e6 = try catalogued("letsencrypt/e6-065ab7d2.pem")
        let x2 = try catalogued("letsencrypt/isrg-root-x2.pem")
        let short = try report(served: leaf + [e6], anchor: x2, pins: [pin(x2)], on: day("2025-07-01"))
        XCTAssertEqual(short.status, .ok)

        let android = try TrustStore(
            name: "Android 13",
            anchors: ["0d69c7e1.0", "5acf816d.0", "6187b673.0", "f013ecaf.0", "fd08c599.0"].flatMap {
                try certificates("\(Self.fixtures)/android-13/\($0)")
            })
        XCTAssertFalse(ClientPath.build(served: leaf + [e6], store: android).anchored, "Android 13 holds no ISRG Root X2")
        let defaultChain = ClientPath.build(served: leaf + [try catalogued("letsencrypt/e6-76e9e288.pem")], store: android)
        XCTAssertTrue(defaultChain.anchored)
        XCTAssertEqual(defaultChain.certificates.map { CertificateName.short($0.subject) }, ["letsencrypt.org", "E6", "ISRG Root X1"])
    }

    /// The same short chain through a release that names the Android 13
    /// store as its own (`trust_store:` read as Android ships it, a hash
    /// folder): that release refuses it while the host's store trusts it.
    func testAReleaseOnAndroid13RefusesTheShortE6ChainAndAcceptsTheDefaultOne() throws {
        let android = TrustStore(name: "Android 13", anchors: try TrustStoreFiles.read("\(Self.fixtures)/android-13"))
        XCTAssertEqual(android.anchors.count, 5)
        let leaf = try fixture("le-e6-letsencrypt-org.pem")
        let x1 = try catalogued("letsencrypt/isrg-root-x1.pem")
        let x2 = try catalogued("letsencrypt/isrg-root-x2.pem")
        let rule = ClientPinRule(domain: "real.test", pins: [pin(x1), pin(x2)], origin: "network_security_config.xml:4")
        var release = ClientPolicy(name: "android 13", pins: ImportedPins(file: "nsc.xml", format: .nsc, rules: [rule]))
        release.trustStore = android
        let catalogue = try CatalogueLoader.load(sources: [], userFolder: nil)
        func releaseReport(_ served: [CertificateFacts], anchor: CertificateFacts) throws -> HostReport {
            let host = try report(served: served, anchor: anchor, pins: [pin(x1), pin(x2)], on: day("2025-07-01"))
            XCTAssertEqual(host.status, .ok, "the host's own store trusts it")
            let combined = ClientVerdicts.apply(
                to: host, clients: [release], now: day("2025-07-01"), warnDays: 21, criticalDays: 7, catalogue: catalogue)
            return try XCTUnwrap(combined.clients.first?.report)
        }
        let short = try releaseReport(leaf + [catalogued("letsencrypt/e6-065ab7d2.pem")], anchor: x2)
        XCTAssertEqual(short.status, .blocked)
        XCTAssertTrue(short.alerts.contains(.untrusted), "\(short.alerts)")
        let defaultChain = try releaseReport(leaf + [catalogued("letsencrypt/e6-76e9e288.pem")], anchor: x1)
        XCTAssertEqual(defaultChain.status, .ok)
        XCTAssertEqual(defaultChain.levels.last.map { CertificateName.short($0.certificate.facts.subject) }, "ISRG Root X1")
    }

    // MARK: Google Trust Services

    func testAGTSRootR4PinSurvivesWE1AsServersSendItAndAGlobalSignPinDoesNot() throws {
        let served = try fixture("gts-we1-www-cloudflare-com-served.pem")
        XCTAssertEqual(served.count, 3, "leaf, WE1, GTS Root R4 signed by GlobalSign Root CA")
        let r4 = try catalogued("gts/gts-root-r4.pem")
        let pinnedR4 = try report(served: served, anchor: r4, pins: [pin(r4)], on: day("2026-10-01"))
        XCTAssertEqual(pinnedR4.status, .ok)
        XCTAssertEqual(
            pinnedR4.levels.map { CertificateName.short($0.certificate.facts.subject) }, ["www.cloudflare.com", "WE1", "GTS Root R4"])
        let next = try XCTUnwrap(pinnedR4.nextChains)
        XCTAssertEqual(next.survives(.leafRenewal), true)
        XCTAssertEqual(vias(next, .intermediateRotation, survives: true), ["WE2", "WE3", "WE4"])
        XCTAssertFalse(next.recommended.contains { $0.subject == "GlobalSign ECC Root CA - R4" }, "\(next.recommended)")

        let globalSign = try catalogued("gts/globalsign-ecc-root-ca-r4.pem")
        let pinnedGlobalSign = try report(served: served, anchor: r4, pins: [pin(globalSign)], on: day("2026-10-01"))
        XCTAssertEqual(pinnedGlobalSign.status, .blocked, "GlobalSign ECC Root CA - R4 is on no path a client builds from this chain")
        XCTAssertEqual(pinnedGlobalSign.nextChains?.chains.filter { !$0.carriedBy.isEmpty }.map(\.via), [])
        XCTAssertEqual(pinnedGlobalSign.nextChains?.recommended.first?.subject, "GTS Root R4")
    }

    func testAGTSRootR1PinOnAWR1LeafSurvivesTheRotationUnderR1() throws {
        let served = try fixture("gts-wr1-vercel-app.pem") + [catalogued("gts/wr1-b10b6f00.pem")]
        let r1 = try catalogued("gts/gts-root-r1.pem")
        let report = try report(served: served, anchor: r1, pins: [pin(r1)], on: day("2026-02-01"))
        XCTAssertEqual(report.status, .ok)
        XCTAssertEqual(vias(report.nextChains, .intermediateRotation, survives: true), ["WR2", "WR3", "WR4"])
        // WR5 is issued under GTS Root R2: a standby the R1 pin does not cover.
        XCTAssertEqual(vias(report.nextChains, .intermediateRotation, survives: false), ["WR5"])
        XCTAssertEqual(report.nextChains?.recommended.map(\.subject), ["GTS Root R2"])
        XCTAssertTrue(
            report.reason.hasPrefix("the root pin (GTS Root R1) does not cover every intermediate of the pool; "),
            "a root pin is not \"only the intermediate\": \(report.reason)")
    }

    // MARK: Amazon

    func testAnAmazonM02LeafPinnedToItsIntermediateIsToldToPinRootCA1() throws {
        let m02 = try catalogued("amazon/amazon-rsa-2048-m02-b0f330a3.pem")
        let root = try catalogued("amazon/amazon-root-ca-1.pem")
        let served = try fixture("amazon-m02-good-tools.pem") + [m02]
        let pinnedIntermediate = try report(served: served, anchor: root, pins: [pin(m02)], on: day("2023-06-01"))
        XCTAssertEqual(pinnedIntermediate.alerts, [.intermediatePool])
        XCTAssertEqual(pinnedIntermediate.nextChains?.recommended.map(\.subject), ["Amazon Root CA 1"])
        XCTAssertEqual(
            pinnedIntermediate.nextChains?.chains(.intermediateRotation).map(\.via),
            ["Amazon RSA 2048 M01", "Amazon RSA 2048 M03", "Amazon RSA 2048 M04", "Amazon RSA 2048 M05", "Amazon RSA 2048 M06"],
            "an RSA leaf rotates among the RSA pool only")
        let pinnedRoot = try report(served: served, anchor: root, pins: [pin(root)], on: day("2023-06-01"))
        XCTAssertEqual(pinnedRoot.alerts, [])
        XCTAssertEqual(pinnedRoot.nextChains?.recommended, [])
    }
}
