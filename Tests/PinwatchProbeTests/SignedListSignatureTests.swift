import Foundation
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Real ECDSA P-256 signatures over the bytes a signed pin list signs,
/// made in the test with fresh keys.
final class SignedListSignatureTests: XCTestCase {
    private let message = Array("api.example.com&\(Data(repeating: 1, count: 32).base64EncodedString())&1800000000".utf8)

    func testAValidSignatureVerifiesAndAnythingElseDoesNot() throws {
        let signer = try PrivateKey.ecdsa(.p256)
        let signature = try signer.signSHA256(message)
        XCTAssertTrue(SignedListSignature.verify(message: message, signature: signature, publicKey: signer.uncompressedPoint))

        var otherBytes = message
        otherBytes[otherBytes.count - 1] ^= 1
        XCTAssertFalse(
            SignedListSignature.verify(message: otherBytes, signature: signature, publicKey: signer.uncompressedPoint),
            "one byte of the expiry changed")
        let stranger = try PrivateKey.ecdsa(.p256)
        XCTAssertFalse(SignedListSignature.verify(message: message, signature: signature, publicKey: stranger.uncompressedPoint))
        var flipped = signature
        flipped[flipped.count / 2] ^= 0x40
        XCTAssertFalse(SignedListSignature.verify(message: message, signature: flipped, publicKey: signer.uncompressedPoint))
    }

    func testMalformedKeysAndSignaturesAreFalseNotACrash() throws {
        let signer = try PrivateKey.ecdsa(.p256)
        let signature = try signer.signSHA256(message)
        var compressed = signer.uncompressedPoint
        compressed[0] = 0x02
        var offCurve = signer.uncompressedPoint
        offCurve[64] ^= 1
        for key in [[], [0x04], compressed, offCurve, [UInt8](repeating: 0, count: 65)] {
            XCTAssertFalse(SignedListSignature.verify(message: message, signature: signature, publicKey: key), "\(key.count) bytes")
        }
        for bad in [[], [0x30, 0x00], [UInt8](repeating: 0x30, count: 300), Array(signature.dropLast())] {
            XCTAssertFalse(SignedListSignature.verify(message: message, signature: bad, publicKey: signer.uncompressedPoint))
        }
    }

    func testAnRSAKeyIsNotAListKey() throws {
        let rsa = try PrivateKey.rsa(bits: 2048)
        let signature = try rsa.signSHA256(message)
        XCTAssertFalse(
            SignedListSignature.verify(message: message, signature: signature, publicKey: Array(rsa.subjectPublicKeyInfoDER.suffix(65))))
    }
}
