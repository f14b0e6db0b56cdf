import Foundation
import XCTest

@testable import PinwatchCore

/// Issuers Certificate Transparency showed, placed in the family their
/// logged chain hangs from: listed against the declared pool, and the pool
/// of a family the data knows by its roots only.
final class ObservedIssuerTests: XCTestCase {
    private func member(_ subject: String, key: UInt8) -> CatalogueCertificate {
        let facts = Fixtures.certificate(subject, key: key, issuer: "CN=Root A").facts
        return CatalogueCertificate(name: subject, facts: facts, file: "\(subject).pem")
    }

    private var rootA: CatalogueCertificate {
        var root = Fixtures.certificate("CN=Root A", key: 10, fromServer: false, issuer: "CN=Root A").facts
        root.isSelfSigned = true
        return CatalogueCertificate(name: "Root A", facts: root, file: "root-a.pem")
    }

    private var rootB: CatalogueCertificate {
        var root = Fixtures.certificate("CN=Root B", key: 20, fromServer: false, issuer: "CN=Root B").facts
        root.isSelfSigned = true
        return CatalogueCertificate(name: "Root B", facts: root, file: "root-b.pem")
    }

    /// Family a declares one member (key 11); family b is known by its root only.
    private var catalogue: Catalogue {
        Catalogue(families: [
            CatalogueFamily(
                name: "a", displayName: "CA A", roots: [rootA],
                intermediates: [CatalogueIntermediate(certificate: member("CN=A1", key: 11), state: .active, root: "Root A")],
                origin: "test"),
            CatalogueFamily(name: "b", displayName: "CA B", roots: [rootB], intermediates: [], origin: "test"),
        ])
    }

    private func logged(under issuer: String, key: UInt8, root: CatalogueCertificate, day: Double) -> ObservedIssuer.Logging {
        let leaf = Fixtures.certificate("CN=api.example.com", key: 1, issuer: issuer).facts
        let issuerFacts = Fixtures.certificate(issuer, key: key, issuer: root.facts.subject).facts
        return (Fixtures.now.addingTimeInterval(day * Fixtures.day), [leaf, issuerFacts, root.facts])
    }

    func testEachIssuerIsPlacedInItsFamilyOnceAndMarkedAgainstTheDeclaredPool() {
        let observed = ObservedIssuer.observed(
            [
                logged(under: "CN=A1", key: 11, root: rootA, day: -3), logged(under: "CN=A2", key: 12, root: rootA, day: -2),
                logged(under: "CN=A2", key: 12, root: rootA, day: -1), logged(under: "CN=B1", key: 21, root: rootB, day: -1),
                // A chain to no family of the catalogue has no pool to join.
                (Fixtures.now, [Fixtures.certificate("CN=x", key: 1).facts, Fixtures.certificate("CN=Z1", key: 31).facts]),
            ], in: catalogue)
        XCTAssertEqual(observed.map(\.family), ["a", "a", "b"])
        XCTAssertEqual(observed.map(\.facts.subject), ["CN=A1", "CN=A2", "CN=B1"])
        XCTAssertEqual(observed.map(\.inPool), [true, false, false])
        let a2 = observed[1]
        XCTAssertEqual(a2.firstSeen, Fixtures.now.addingTimeInterval(-2 * Fixtures.day))
        XCTAssertEqual(a2.lastSeen, Fixtures.now.addingTimeInterval(-1 * Fixtures.day))
        XCTAssertEqual(a2.servedAbove, [], "the logged root is not what the CA sends")
    }

    func testOnlyAFamilyKnownByItsRootsGetsAPoolFromWhatWasSeen() {
        let catalogue = self.catalogue
        let observed = ObservedIssuer.observed(
            [logged(under: "CN=A2", key: 12, root: rootA, day: -1), logged(under: "CN=B1", key: 21, root: rootB, day: -1)],
            in: catalogue)
        let augmented = catalogue.addingObserved(observed)
        XCTAssertEqual(
            augmented.family(named: "a")?.intermediates.map(\.certificate.name), ["CN=A1"], "a declared pool stays as declared")
        let b = augmented.family(named: "b")
        XCTAssertEqual(b?.intermediates.map(\.certificate.name), ["B1 (seen in CT)"])
        XCTAssertEqual(b?.intermediates.first?.state, .active)
        XCTAssertEqual(b?.intermediates.first?.root, "Root B")
        XCTAssertEqual(b?.knowsPool, true)
        XCTAssertEqual(catalogue.addingObserved([]), catalogue)
    }
}
