import COpenSSL
import Foundation
import PinwatchTestSupport
import XCTest

@testable import PinwatchLocalWorld
@testable import PinwatchProbe

final class LocalPKITests: XCTestCase {
    func testIssuedChainVerifiesAgainstItsRootOnly() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Pinwatch Test Root", organization: "Pinwatch")
        let intermediate = try root.issueIntermediate(commonName: "Pinwatch Test CA 1", pathLength: 0)
        let leaf = try intermediate.issueLeaf(commonName: "api.example.test", dnsNames: ["api.example.test"])
        let otherRoot = try CertificateAuthority.makeRoot(commonName: "Another Root")

        XCTAssertEqual(
            TestChainVerifier.verify(
                leaf.certificate, intermediates: [intermediate.certificate], roots: [root.certificate],
                hostname: "api.example.test"),
            X509_V_OK)
        XCTAssertNotEqual(
            TestChainVerifier.verify(
                leaf.certificate, intermediates: [intermediate.certificate], roots: [otherRoot.certificate]),
            X509_V_OK)
        // Without the intermediate the chain cannot be completed.
        XCTAssertEqual(
            TestChainVerifier.verify(leaf.certificate, roots: [root.certificate]),
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)
    }

    func testPathLengthIsEnforcedByVerifiers() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let limited = try root.issueIntermediate(commonName: "Limited", pathLength: 0)
        let below = try limited.issueIntermediate(commonName: "Too deep", pathLength: 0)
        let leaf = try below.issueLeaf(commonName: "deep.example.test", dnsNames: ["deep.example.test"])
        XCTAssertEqual(
            TestChainVerifier.verify(
                leaf.certificate, intermediates: [below.certificate, limited.certificate], roots: [root.certificate]),
            X509_V_ERR_PATH_LENGTH_EXCEEDED)
    }

    func testLeafCarriesRequestedNamesAndServerAuth() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let leaf = try root.issueLeaf(
            commonName: "api.example.test", dnsNames: ["api.example.test", "*.cdn.example.test"],
            ipAddresses: ["127.0.0.1", "::1"])
        let certificate = leaf.certificate.borrowedPointer
        XCTAssertEqual(X509_check_host(certificate, "api.example.test", 0, 0, nil), 1)
        XCTAssertEqual(X509_check_host(certificate, "img.cdn.example.test", 0, 0, nil), 1)
        XCTAssertEqual(X509_check_host(certificate, "other.example.test", 0, 0, nil), 0)
        XCTAssertEqual(X509_check_ip_asc(certificate, "127.0.0.1", 0), 1)
        XCTAssertEqual(X509_check_ip_asc(certificate, "::1", 0), 1)
        XCTAssertEqual(X509_check_ip_asc(certificate, "127.0.0.2", 0), 0)
        XCTAssertEqual(X509_check_purpose(certificate, X509_PURPOSE_SSL_SERVER, 0), 1)
        XCTAssertEqual(X509_check_ca(certificate), 0)
        XCTAssertEqual(X509_check_ca(root.certificate.borrowedPointer), 1)
    }

    func testValidityWindowIsAsRequested() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let notBefore = Date(timeIntervalSince1970: 1_780_000_000)
        let notAfter = Date(timeIntervalSince1970: 1_790_000_000)
        let leaf = try root.issueLeaf(
            commonName: "window.example.test",
            validity: ValidityWindow(notBefore: notBefore, notAfter: notAfter))
        XCTAssertEqual(Self.unixTime(X509_get0_notBefore(leaf.certificate.borrowedPointer)), 1_780_000_000)
        XCTAssertEqual(Self.unixTime(X509_get0_notAfter(leaf.certificate.borrowedPointer)), 1_790_000_000)
    }

    func testExpiredLeafFailsVerificationAndSoonExpiringDoesNot() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let expired = try root.issueLeaf(commonName: "old.example.test", validity: .ending(inDays: -2))
        let soon = try root.issueLeaf(commonName: "soon.example.test", validity: .ending(inDays: 3))
        XCTAssertEqual(
            TestChainVerifier.verify(expired.certificate, roots: [root.certificate]), X509_V_ERR_CERT_HAS_EXPIRED)
        XCTAssertEqual(TestChainVerifier.verify(soon.certificate, roots: [root.certificate]), X509_V_OK)
        let secondsLeft = Self.unixTime(X509_get0_notAfter(soon.certificate.borrowedPointer)) - Int(Date().timeIntervalSince1970)
        XCTAssertTrue((3 * 86400 - 600...3 * 86400).contains(secondsLeft), "\(secondsLeft)")
    }

    func testCrossSignedIntermediateVerifiesThroughBothRoots() throws {
        let oldRoot = try CertificateAuthority.makeRoot(commonName: "Old Root")
        let newRoot = try CertificateAuthority.makeRoot(commonName: "New Root")
        let intermediate = try newRoot.issueIntermediate(commonName: "Shared Intermediate")
        let crossSigned = try oldRoot.crossSign(intermediate.certificate)
        let leaf = try intermediate.issueLeaf(commonName: "cross.example.test", dnsNames: ["cross.example.test"])

        XCTAssertEqual(
            TestChainVerifier.verify(leaf.certificate, intermediates: [intermediate.certificate], roots: [newRoot.certificate]),
            X509_V_OK)
        XCTAssertEqual(
            TestChainVerifier.verify(leaf.certificate, intermediates: [crossSigned], roots: [oldRoot.certificate]),
            X509_V_OK)
        XCTAssertNotEqual(
            TestChainVerifier.verify(leaf.certificate, intermediates: [intermediate.certificate], roots: [oldRoot.certificate]),
            X509_V_OK)
        // Same subject and key, different issuer and serial.
        XCTAssertEqual(
            X509_NAME_cmp(
                X509_get_subject_name(crossSigned.borrowedPointer), X509_get_subject_name(intermediate.certificate.borrowedPointer)), 0)
        XCTAssertEqual(Self.spki(crossSigned), Self.spki(intermediate.certificate))
        XCTAssertEqual(
            X509_NAME_cmp(X509_get_issuer_name(crossSigned.borrowedPointer), X509_get_subject_name(oldRoot.certificate.borrowedPointer)), 0)
        XCTAssertEqual(X509_check_ca(crossSigned.borrowedPointer), 1)
        XCTAssertNotEqual(crossSigned.der, intermediate.certificate.der)
    }

    func testSerialsAreRandomAndPositive() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let first = try root.issueLeaf(commonName: "a.example.test", key: root.key)
        let second = try root.issueLeaf(commonName: "a.example.test", key: root.key)
        let firstSerial = X509_get0_serialNumber(first.certificate.borrowedPointer)
        let secondSerial = X509_get0_serialNumber(second.certificate.borrowedPointer)
        XCTAssertNotEqual(ASN1_INTEGER_cmp(firstSerial, secondSerial), 0)
        let number = ASN1_INTEGER_to_BN(firstSerial, nil)
        defer { BN_free(number) }
        XCTAssertEqual(BN_is_negative(number), 0)
        XCTAssertEqual(BN_num_bits(number), 127)
    }

    func testSelfSignedLeafIsNotACAButVerifiesAsItsOwnAnchor() throws {
        let leaf = try SelfSignedLeaf.make(commonName: "appliance.local", dnsNames: ["appliance.local"])
        XCTAssertEqual(X509_check_ca(leaf.certificate.borrowedPointer), 0)
        XCTAssertEqual(
            X509_NAME_cmp(X509_get_subject_name(leaf.certificate.borrowedPointer), X509_get_issuer_name(leaf.certificate.borrowedPointer)),
            0)
        XCTAssertEqual(X509_verify(leaf.certificate.borrowedPointer, X509_get0_pubkey(leaf.certificate.borrowedPointer)), 1)
        let otherRoot = try CertificateAuthority.makeRoot(commonName: "Root")
        XCTAssertNotEqual(TestChainVerifier.verify(leaf.certificate, roots: [otherRoot.certificate]), X509_V_OK)
    }

    func testPaddedLeafIsAboutAMegabyteAndStillVerifies() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let leaf = try root.issueLeaf(commonName: "huge.example.test", paddingBytes: 1_000_000)
        XCTAssertGreaterThan(leaf.certificate.der.count, 1_000_000)
        XCTAssertLessThan(leaf.certificate.der.count, 1_002_000)
        XCTAssertEqual(TestChainVerifier.verify(leaf.certificate, roots: [root.certificate]), X509_V_OK)
        // It survives a DER round trip, so it is well-formed.
        XCTAssertEqual(try X509Certificate(der: leaf.certificate.der).der, leaf.certificate.der)
    }

    func testSignaturesAreSHA256AndKeyIdentifiersLink() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root", key: .ecdsa(.p384))
        let leaf = try root.issueLeaf(commonName: "kid.example.test")
        XCTAssertEqual(X509_get_signature_nid(leaf.certificate.borrowedPointer), NID_ecdsa_with_SHA256)
        let rootKeyID = X509_get0_subject_key_id(root.certificate.borrowedPointer)
        let leafAuthorityKeyID = X509_get0_authority_key_id(leaf.certificate.borrowedPointer)
        XCTAssertNotNil(rootKeyID)
        XCTAssertEqual(ASN1_OCTET_STRING_cmp(rootKeyID, leafAuthorityKeyID), 0)
    }

    func testPrivateKeysRoundTripThroughPKCS8() throws {
        for key in [try PrivateKey.ecdsa(.p256), try PrivateKey.ecdsa(.p384), try PrivateKey.rsa(bits: 2048)] {
            let pem = try key.pem
            XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----\n"), pem)
            let decoded = try PrivateKey(pem: pem)
            XCTAssertEqual(decoded.subjectPublicKeyInfoDER, key.subjectPublicKeyInfoDER)
            XCTAssertFalse(key.subjectPublicKeyInfoDER.isEmpty)
        }
        let p384 = try PrivateKey.ecdsa(.p384)
        let rsa = try PrivateKey.rsa(bits: 2048)
        withExtendedLifetime((p384, rsa)) {
            XCTAssertEqual(EVP_PKEY_get_bits(p384.pointer), 384)
            XCTAssertEqual(EVP_PKEY_get_bits(rsa.pointer), 2048)
        }
        XCTAssertThrowsError(try PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"))
        XCTAssertThrowsError(try PrivateKey.rsa(bits: 12))
    }

    func testRSALeafServesTLSKeyUsage() throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Root")
        let leaf = try root.issueLeaf(commonName: "rsa.example.test", key: .rsa(bits: 2048))
        XCTAssertEqual(X509_get_signature_nid(leaf.certificate.borrowedPointer), NID_ecdsa_with_SHA256)
        XCTAssertNotEqual(X509_get_key_usage(leaf.certificate.borrowedPointer) & UInt32(KU_KEY_ENCIPHERMENT), 0)
        XCTAssertEqual(TestChainVerifier.verify(leaf.certificate, roots: [root.certificate]), X509_V_OK)
    }

    private static func unixTime(_ time: UnsafePointer<ASN1_TIME>?) -> Int {
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return -1 }
        return timegm(&parts)
    }

    private static func spki(_ certificate: X509Certificate) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(X509_get0_pubkey(certificate.borrowedPointer), &out)
        guard length > 0, let out else { return [] }
        defer { pinwatch_OPENSSL_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
