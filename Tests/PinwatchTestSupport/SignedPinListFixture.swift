import Foundation
import PinwatchLocalWorld

/// A WultraSSLPinning-style list, signed in the test.
package enum SignedPinListFixture {
    package struct Entry {
        package var name: String
        /// SHA-256 of the certificate DER.
        package var fingerprint: [UInt8]
        package var expires: Int
        /// Sign something else than what the entry says.
        package var tampered = false

        package init(name: String, fingerprint: [UInt8], expires: Int, tampered: Bool = false) {
            self.name = name
            self.fingerprint = fingerprint
            self.expires = expires
            self.tampered = tampered
        }
    }

    package static func json(_ entries: [Entry], signedBy key: PrivateKey) throws -> String {
        var items: [String] = []
        for entry in entries {
            let fingerprint = Data(entry.fingerprint).base64EncodedString()
            let signedName = entry.tampered ? entry.name + ".evil" : entry.name
            let signature = try key.signSHA256(Array("\(signedName)&\(fingerprint)&\(entry.expires)".utf8))
            items.append(
                "{\"name\":\"\(entry.name)\",\"fingerprint\":\"\(fingerprint)\",\"expires\":\(entry.expires),"
                    + "\"signature\":\"\(Data(signature).base64EncodedString())\"}")
        }
        return "{\"fingerprints\":[" + items.joined(separator: ",") + "]}"
    }
}
