import Foundation
import XCTest

@testable import PinwatchCore

/// Chrome's Certificate Transparency policy, which Android applies: the
/// number of SCTs by delivery and leaf lifetime, distinct operators, and
/// which SCTs count at all.
final class CTComplianceTests: XCTestCase {
    private let issued = Date(timeIntervalSince1970: 1_780_000_000)

    private func leaf(days: Double) -> CertificateFacts {
        CertificateFacts(
            subject: "CN=api.test", issuer: "CN=CA", notBefore: issued, notAfter: issued.addingTimeInterval(days * 86_400),
            keyDescription: "EC P-256", spkiSHA256: [1], keySHA256: [2], certSHA256: [3])
    }

    private func sct(
        _ log: UInt8, _ operatorName: String, _ delivery: SCTDelivery = .embedded, _ check: ObservedSCT.Check = .valid,
        state: String? = "usable"
    ) -> ObservedSCT {
        ObservedSCT(
            logID: [log], delivery: delivery, timestamp: issued, check: check, logOperator: operatorName, logState: state)
    }

    func testEmbeddedSCTsNeedTwoOrThreeByLifetimeFromTwoOperators() {
        let two = [sct(1, "A"), sct(2, "B")]
        XCTAssertTrue(CTCompliance.judge(two, leaf: leaf(days: 180)).compliant)
        let long = CTCompliance.judge(two, leaf: leaf(days: 181))
        XCTAssertFalse(long.compliant)
        XCTAssertTrue(
            long.sentence.hasSuffix("wants 3 embedded for this 181-day leaf or 2 in the handshake, from 2 operators"), long.sentence)
        XCTAssertTrue(CTCompliance.judge(two + [sct(3, "A")], leaf: leaf(days: 365)).compliant)
        XCTAssertFalse(CTCompliance.judge([sct(1, "A"), sct(2, "A")], leaf: leaf(days: 90)).compliant, "one operator is not enough")
    }

    func testSCTsInTheHandshakeNeedTwoFromTwoOperatorsWhateverTheLifetime() {
        let delivered = [sct(1, "A", .tlsExtension), sct(2, "B", .ocsp)]
        XCTAssertTrue(CTCompliance.judge(delivered, leaf: leaf(days: 398)).compliant)
        XCTAssertFalse(CTCompliance.judge([sct(1, "A", .tlsExtension), sct(2, "A", .ocsp)], leaf: leaf(days: 90)).compliant)
        // Deliveries are not mixed: one embedded and one in the handshake is neither.
        XCTAssertFalse(CTCompliance.judge([sct(1, "A"), sct(2, "B", .tlsExtension)], leaf: leaf(days: 90)).compliant)
    }

    func testOnlyValidSCTsOfCountingLogsCount() {
        let forged = CTCompliance.judge([sct(1, "A"), sct(2, "B", .embedded, .badSignature)], leaf: leaf(days: 90))
        XCTAssertFalse(forged.compliant)
        XCTAssertTrue(forged.sentence.contains("1 SCT not signed by its log's key"), forged.sentence)
        let unknown = CTCompliance.judge([sct(1, "A"), sct(2, "B", .embedded, .unknownLog)], leaf: leaf(days: 90))
        XCTAssertFalse(unknown.compliant)
        XCTAssertTrue(unknown.sentence.contains("1 SCT from a log not in the list"), unknown.sentence)
        XCTAssertFalse(CTCompliance.judge([sct(1, "A"), sct(2, "B", state: "pending")], leaf: leaf(days: 90)).compliant)
        // A retired log's embedded SCT still counts beside a current one; in the handshake it does not.
        XCTAssertTrue(CTCompliance.judge([sct(1, "A", state: "retired"), sct(2, "B")], leaf: leaf(days: 90)).compliant)
        XCTAssertFalse(
            CTCompliance.judge([sct(1, "A", state: "retired"), sct(2, "B", state: "retired")], leaf: leaf(days: 90)).compliant)
        XCTAssertFalse(
            CTCompliance.judge([sct(1, "A", .tlsExtension, state: "retired"), sct(2, "B", .tlsExtension)], leaf: leaf(days: 90))
                .compliant)
        XCTAssertTrue(CTCompliance.judge([sct(1, "A", state: nil), sct(2, "B", state: nil)], leaf: leaf(days: 90)).compliant)
    }

    func testNoSCTAtAllIsSaid() {
        let none = CTCompliance.judge([], leaf: leaf(days: 90))
        XCTAssertFalse(none.compliant)
        XCTAssertEqual(
            none.sentence,
            "the leaf came with no SCT (none embedded, in the TLS extension or in a stapled OCSP response); "
                + "Chrome's policy, which Android applies, wants 2 embedded for this 90-day leaf or 2 in the handshake, from 2 operators")
    }
}
