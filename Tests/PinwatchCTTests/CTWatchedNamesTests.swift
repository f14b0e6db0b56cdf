import PinwatchCT
import XCTest

/// Which logged names a watch list keeps: exact names, domains, and
/// wildcard certificates, which cover one label below their base.
final class CTWatchedNamesTests: XCTestCase {
    func testAWildcardCertificateCoversAWatchedNameOneLabelBelowItsBaseOnly() {
        let watched = CTWatchedNames(["api.example.test", "example.org", ".corp.test"])
        XCTAssertTrue(watched.matches("*.example.test"), "covers api.example.test")
        XCTAssertTrue(watched.matches("API.Example.Test"))
        XCTAssertFalse(watched.matches("*.api.example.test"), "covers names below api.example.test, not it")
        XCTAssertFalse(watched.matches("*.example.org"), "a wildcard does not cover its base")
        XCTAssertTrue(watched.matches("*.corp.test"))
        XCTAssertTrue(watched.matches("*.deep.corp.test"))
        XCTAssertTrue(watched.matches("corp.test"))
        XCTAssertFalse(watched.matches("*.test"))
        XCTAssertFalse(watched.matches("notcorp.test"))
    }

    /// The byte search that spares parsing a certificate for no watched
    /// name never hides one that is: upper case, a wildcard, a precertificate.
    func testTheByteSearchNeverHidesAWatchedCertificate() throws {
        let fixture = try LocalCTFixture()
        try fixture.logCertificate(["API.EXAMPLE.TEST"])
        try fixture.logCertificate(["*.example.test"])
        try fixture.logPrecertificate(["www.Example.Test", "other.test"])
        try fixture.logCertificate(["example.test.evil"])
        try fixture.logCertificate(["unrelated.test"])
        try fixture.log.publish()
        let entries = try fixture.follower().advance().entries
        let watched = CTWatchedNames(["api.example.test", ".www.example.test"])
        XCTAssertEqual(entries.filter(watched.matches).map(\.index), [0, 1, 2])
        let many = CTWatchedNames((0..<100).map { "h\($0).example.test" } + ["api.example.test"])
        XCTAssertEqual(entries.filter(many.matches).map(\.index), [0, 1])
    }
}
