import PinwatchLocalWorld
import PinwatchProbe
import XCTest

/// The logs' keys a probe checks SCTs with, decoded once per loop: the
/// cache answers by the key's bytes, never by anything a changed key
/// could share, and stays within its bound.
final class VerifyingKeyCacheTests: XCTestCase {
    private let message = Array("signed certificate timestamp".utf8)

    func testAnotherKeyGetsItsOwnDecodingAndVerdict() throws {
        let signer = try PrivateKey.ecdsa(.p256)
        let stranger = try PrivateKey.ecdsa(.p256)
        let rsa = try PrivateKey.rsa(bits: 2048)
        let signature = try signer.signSHA256(message)
        let cache = VerifyingKeyCache()

        let signerKey = try XCTUnwrap(cache.key(subjectPublicKeyInfo: signer.subjectPublicKeyInfoDER))
        XCTAssertTrue(SignedListSignature.verify(message: message, signature: signature, key: signerKey))
        let strangerKey = try XCTUnwrap(cache.key(subjectPublicKeyInfo: stranger.subjectPublicKeyInfoDER))
        XCTAssertFalse(strangerKey === signerKey)
        XCTAssertFalse(SignedListSignature.verify(message: message, signature: signature, key: strangerKey))
        let rsaKey = try XCTUnwrap(cache.key(subjectPublicKeyInfo: rsa.subjectPublicKeyInfoDER), "a log may sign with RSA")
        XCTAssertTrue(SignedListSignature.verify(message: message, signature: try rsa.signSHA256(message), key: rsaKey))

        // The same bytes again, as the next probe's log list holds them.
        let again = Array(signer.subjectPublicKeyInfoDER)
        XCTAssertTrue(try XCTUnwrap(cache.key(subjectPublicKeyInfo: again)) === signerKey)
        XCTAssertNil(cache.key(subjectPublicKeyInfo: signer.subjectPublicKeyInfoDER + [0]), "trailing bytes are no key")
        XCTAssertEqual(cache.count, 4)
    }

    func testTheCacheStaysWithinItsBound() throws {
        let signer = try PrivateKey.ecdsa(.p256)
        let signature = try signer.signSHA256(message)
        let cache = VerifyingKeyCache()
        for index in 0...VerifyingKeyCache.capacity {
            XCTAssertNil(cache.key(subjectPublicKeyInfo: [0x30, UInt8(index % 256), UInt8(index / 256)]))
            XCTAssertLessThanOrEqual(cache.count, VerifyingKeyCache.capacity)
        }
        let key = try XCTUnwrap(cache.key(subjectPublicKeyInfo: signer.subjectPublicKeyInfoDER))
        XCTAssertTrue(SignedListSignature.verify(message: message, signature: signature, key: key))
        XCTAssertLessThanOrEqual(cache.count, VerifyingKeyCache.capacity)
    }
}
