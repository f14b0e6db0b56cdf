import Foundation
import XCTest

@testable import PinwatchCore

/// `pinwatch catalogue show`: certificate text comes from files and is
/// sanitised before the terminal; every pin form is printed.
final class CatalogueListingTests: XCTestCase {
    private func family(subject: String) -> CatalogueFamily {
        let facts = Fixtures.certificate(subject, key: 7, issuer: subject).facts
        let root = CatalogueCertificate(name: "Evil\u{1b}]52;c;bad\u{07}Root", facts: facts, file: "corp/root.pem")
        let intermediate = CatalogueCertificate(name: "CA 1", facts: Fixtures.certificate("CN=CA 1", key: 8).facts, file: "corp/ca1.pem")
        return CatalogueFamily(
            name: "corp", displayName: "Corp", roots: [root],
            intermediates: [CatalogueIntermediate(certificate: intermediate, state: .standby, root: root.name)], origin: "config")
    }

    func testShowSanitisesCertificateTextAndPrintsEveryPinForm() {
        let text = CatalogueListing.showText(family(subject: "CN=Root\u{1b}[2J\nO=Injected"))
        XCTAssertFalse(text.contains("\u{1b}"), text)
        XCTAssertFalse(text.contains("\u{07}"), text)
        XCTAssertFalse(text.contains("\nO=Injected"), "a newline in a subject must not start a line of its own")
        for form in PinForms(Fixtures.certificate("CN=CA 1", key: 8).facts).all {
            XCTAssertTrue(text.contains(form), form)
        }
        XCTAssertTrue(text.contains("intermediate (standby, under"), text)
    }

    func testListingSanitisesNamesAndSaysThePoolState() {
        let text = CatalogueListing.text(Catalogue(families: [family(subject: "CN=Root")]), now: Fixtures.now)
        XCTAssertFalse(text.contains("\u{1b}"), text)
        XCTAssertTrue(text.contains("pool:         CA 1 (standby)"), text)
        XCTAssertTrue(text.hasPrefix("corp — Corp (config)\n"), text)
    }

    func testDataOlderThanHalfAYearIsAVisibleWarning() {
        var family = family(subject: "CN=Root")
        family.dataDate = Fixtures.now.addingTimeInterval(-200 * 86_400)
        let text = CatalogueListing.text(Catalogue(families: [family]), now: Fixtures.now)
        XCTAssertTrue(text.contains("  warning:      the data is 200 days old (over 180)"), text)
        XCTAssertTrue(CatalogueListing.json(Catalogue(families: [family]), now: Fixtures.now).contains("\"stale\": true"))
        family.dataDate = Fixtures.now.addingTimeInterval(-100 * 86_400)
        XCTAssertFalse(CatalogueListing.text(Catalogue(families: [family]), now: Fixtures.now).contains("warning"))
    }
}
