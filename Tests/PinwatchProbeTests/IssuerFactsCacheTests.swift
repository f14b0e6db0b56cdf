import PinwatchCore
import PinwatchLocalWorld
import XCTest

@testable import PinwatchProbe

final class IssuerFactsCacheTests: XCTestCase {
    /// The facts carry the key digests pins are matched against: an
    /// issuer with the same names but another key or another signature
    /// must get its own facts, never the cached ones.
    func testLookAlikeIssuersGetTheirOwnFacts() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root", organization: "Pinwatch")
        let genuine = try root.issueIntermediate(commonName: "Issuing CA", organization: "Pinwatch")
        let otherKey = try root.issueIntermediate(commonName: "Issuing CA", organization: "Pinwatch")
        let impostorRoot = try CertificateAuthority.makeRoot(commonName: "Root", organization: "Pinwatch")
        let sameKeyOtherSigner = try CertificateAuthority(
            certificate: impostorRoot.crossSign(genuine.certificate), key: genuine.key)

        let cache = IssuerFactsCache()
        let first = cache.facts(of: genuine.certificate)
        XCTAssertEqual(first, genuine.certificate.facts)
        XCTAssertEqual(cache.facts(of: otherKey.certificate), otherKey.certificate.facts)
        XCTAssertNotEqual(cache.facts(of: otherKey.certificate).spkiSHA256, first.spkiSHA256)
        let crossSigned = cache.facts(of: sameKeyOtherSigner.certificate)
        XCTAssertEqual(crossSigned.spkiSHA256, first.spkiSHA256, "the same key")
        XCTAssertNotEqual(crossSigned.certSHA256, first.certSHA256, "another certificate")

        // The same bytes parsed again, as from the next handshake.
        let reparsed = try XCTUnwrap(CertificateReader.certificates(in: genuine.certificate.der, source: "test").first)
        XCTAssertEqual(cache.facts(of: reparsed), first)
    }
}
