import XCTest

@testable import PinwatchCore

/// A family keeps its certificates and their keys rather than gathering
/// them at each lookup; whatever changes the family, in place or whole,
/// its listing and its answers by key follow.
final class CatalogueFamilyKeysTests: XCTestCase {
    private typealias C = CatalogueFixtures

    /// The family's certificates gathered from its parts, in the listing's order.
    private func gathered(_ family: CatalogueFamily) -> [CatalogueCertificate] {
        var all = family.roots + family.crossSigns
        for intermediate in family.intermediates { all += [intermediate.certificate] + intermediate.servedWith }
        for transition in family.transitions {
            all += transition.roots
            for intermediate in transition.intermediates { all += [intermediate.certificate] + intermediate.servedWith }
        }
        return all
    }

    /// Every key the fixtures use, and one nobody holds.
    private let keys: [UInt8] = Array(1...60)

    private func assertAnswers(_ family: CatalogueFamily, file: StaticString = #filePath, line: UInt = #line) {
        let all = gathered(family)
        XCTAssertEqual(family.allCertificates, all, file: file, line: line)
        for key in keys {
            let digest = Fixtures.digest(key)
            XCTAssertEqual(
                family.containsKey(digest), all.contains { $0.facts.spkiSHA256 == digest }, "key \(key)", file: file, line: line)
        }
        let catalogue = Catalogue(families: [family])
        for certificate in all {
            XCTAssertEqual(catalogue.family(containing: certificate.facts)?.name, family.name, file: file, line: line)
        }
    }

    func testAFreshFamilyListsAndFindsEveryCertificate() {
        assertAnswers(C.letsEncrypt(transitions: [C.generationY]))
        assertAnswers(C.gts)
        XCTAssertFalse(C.gts.containsKey(C.x1.facts.spkiSHA256))
    }

    func testChangesInPlaceAreFollowed() {
        var family = C.letsEncrypt(pool: false)
        XCTAssertFalse(family.containsKey(Fixtures.digest(12)))

        family.intermediates.append(C.rsaPool[2])
        XCTAssertTrue(family.containsKey(Fixtures.digest(12)))
        assertAnswers(family)

        family.intermediates[0].servedWith.append(C.yrByX1)
        XCTAssertTrue(family.containsKey(Fixtures.digest(40)))
        assertAnswers(family)

        family.transitions = [C.generationY]
        XCTAssertTrue(family.containsKey(Fixtures.digest(45)))
        family.transitions[0].intermediates.removeLast()
        XCTAssertFalse(family.containsKey(Fixtures.digest(45)))
        assertAnswers(family)

        family.crossSigns = []
        family.roots.removeFirst()
        XCTAssertFalse(family.containsKey(C.x1.facts.spkiSHA256))
        assertAnswers(family)
    }

    func testFamiliesThatHoldTheSameCertificatesAreEqual() {
        var grown = C.letsEncrypt(pool: false)
        grown.intermediates = C.rsaPool + C.ecdsaPool
        XCTAssertEqual(grown, C.letsEncrypt())
        XCTAssertEqual(Set([grown, C.letsEncrypt()]).count, 1)
    }
}
