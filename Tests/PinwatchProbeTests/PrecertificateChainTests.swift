import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// `preflight` of a chain logged in Certificate Transparency: a
/// precertificate is judged as the certificate it announces, so a pin on
/// its intermediate holds; its poison is the only refusal forgiven.
final class PrecertificateChainTests: XCTestCase {
    private let root = Result { try CertificateAuthority.makeRoot(commonName: "Precertificate Root") }

    private func verdict(_ leaf: IssuedCertificate, under intermediate: CertificateAuthority, trusting anchor: CertificateAuthority)
        throws -> (ProbeResult, HostReport)
    {
        let result = try ServedChain.result(
            of: [leaf.certificate, intermediate.certificate], serverName: "api.test", trust: .pem(anchor.certificate.pem))
        let pin = Pin(kind: .spki, digest: intermediate.certificate.facts.spkiSHA256, text: "intermediate")
        let report = Verdict.report(
            for: HostConfig(host: "api.test", pins: PinSet(ca: [pin])), result: result, now: Date(), warnDays: 21, criticalDays: 7)
        return (result, report)
    }

    func testAPrecertificateUnderThePinnedIntermediateIsTrustedAndMatches() throws {
        let root = try root.get()
        let intermediate = try root.issueIntermediate(commonName: "Precertificate CA")
        let precertificate = try intermediate.issueLeaf(commonName: "api.test", dnsNames: ["api.test"], precertificate: true)
        let (result, report) = try verdict(precertificate, under: intermediate, trusting: root)
        XCTAssertTrue(result.trusted, result.trustError ?? "")
        XCTAssertEqual(result.chain.count, 3)
        XCTAssertEqual(report.status, .ok, report.reason)
    }

    func testAnyOtherRefusalStands() throws {
        let root = try root.get()
        let intermediate = try root.issueIntermediate(commonName: "Precertificate CA")
        // Another critical extension nobody handles, beside the poison or alone.
        for leaf in [
            try intermediate.issueLeaf(
                commonName: "api.test", dnsNames: ["api.test"], precertificate: true, unknownCriticalExtension: true),
            try intermediate.issueLeaf(commonName: "api.test", dnsNames: ["api.test"], unknownCriticalExtension: true),
        ] {
            let (result, report) = try verdict(leaf, under: intermediate, trusting: root)
            XCTAssertFalse(result.trusted)
            XCTAssertEqual(result.trustError, "unhandled critical extension")
            XCTAssertNotEqual(report.status, .ok)
        }
        // A precertificate under a root the store lacks.
        let stranger = try CertificateAuthority.makeRoot(commonName: "Stranger Root")
        let precertificate = try intermediate.issueLeaf(commonName: "api.test", dnsNames: ["api.test"], precertificate: true)
        let (result, _) = try verdict(precertificate, under: intermediate, trusting: stranger)
        XCTAssertFalse(result.trusted)
        XCTAssertNotEqual(result.trustError, "unhandled critical extension")
    }
}
