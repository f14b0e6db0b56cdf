import XCTest

@testable import PinwatchCore

/// A CA certificate's short name: its CN, or its OU where the CN only
/// repeats the organisation; the parts trimmed of tabs and Unicode space
/// separators as Foundation's `CharacterSet.whitespaces` trims them.
final class CertificateNameTests: XCTestCase {
    func testTheCommonNameUnlessItRepeatsTheOrganisation() {
        XCTAssertEqual(CertificateName.short("CN=E6,O=Let's Encrypt,C=US"), "E6")
        XCTAssertEqual(CertificateName.short("C=US, O=Let's Encrypt, CN=R11"), "R11")
        XCTAssertEqual(
            CertificateName.short("OU=GlobalSign ECC Root CA - R4, O=GlobalSign, CN=GlobalSign"), "GlobalSign ECC Root CA - R4")
        XCTAssertEqual(CertificateName.short("CN=GlobalSign,O=GlobalSign"), "GlobalSign")
        XCTAssertEqual(CertificateName.short("CN=Example,O=Other,OU=Unit"), "Example")
    }

    func testTheFirstOfEachPartCounts() {
        XCTAssertEqual(CertificateName.short("CN=First,CN=Second"), "First")
        XCTAssertEqual(CertificateName.short("CN=A,O=A,O=B,OU=U1,OU=U2"), "U1")
        XCTAssertEqual(CertificateName.short("CN=A,O=B,O=A,OU=U"), "A")
    }

    func testWithoutACommonNameTheWholeSubject() {
        XCTAssertEqual(CertificateName.short("O=No Name Inc,C=US"), "O=No Name Inc,C=US")
        XCTAssertEqual(CertificateName.short(""), "")
        XCTAssertEqual(CertificateName.short(" , ,"), " , ,")
        XCTAssertEqual(CertificateName.short("OU=CN=inside"), "OU=CN=inside")
    }

    func testTabsAndSpaceSeparatorsAreTrimmedButNotLineBreaksOrOtherText() {
        XCTAssertEqual(CertificateName.short("O=X,\t CN=Tabbed \t"), "Tabbed")
        // U+00A0 no-break space, U+3000 ideographic space, U+2003 em space: Zs.
        XCTAssertEqual(CertificateName.short("O=X,\u{A0}\u{3000}CN=Wide\u{2003}"), "Wide")
        // A line break is not a space separator: the part keeps it, and then is no CN.
        XCTAssertEqual(CertificateName.short("\nCN=Broken,O=X"), "\nCN=Broken,O=X")
        XCTAssertEqual(CertificateName.short("CN=Ends\n"), "Ends\n")
        XCTAssertEqual(CertificateName.short("CN=  Inner  Space  "), "  Inner  Space")
        XCTAssertEqual(CertificateName.short("CN=Zürich CA,O=Zürich CA,OU=Ünit"), "Ünit")
    }
}
