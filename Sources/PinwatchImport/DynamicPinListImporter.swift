import Foundation
import PinwatchCore

/// A signed dynamic pin list in WultraSSLPinning's format,
/// `{"fingerprints":[{"name","fingerprint","expires","depth"}]}`, the
/// fingerprint the SHA-256 of a certificate's DER at `depth` of the chain
/// (0 the leaf, the default, up to the root). Two ways of signing it:
///
/// - challenge-signed (the SDK since 1.9): the client sends a random
///   `X-Cert-Pinning-Challenge`, the server signs `challenge + "&" + body`
///   and returns the signature in `X-Cert-Pinning-Signature`; the whole
///   list is accepted or refused;
/// - per entry (the older lists): each entry's `signature` over
///   `name + "&" + fingerprint + "&" + expires`, an entry that fails is
///   ignored.
///
/// Both ECDSA P-256 with SHA-256, DER signatures in base64.
package enum DynamicPinListImporter {
    /// Checks one signature: message, DER signature, the app's public key
    /// (uncompressed point). Injected: signatures need OpenSSL.
    package typealias SignatureCheck = @Sendable (_ message: [UInt8], _ signature: [UInt8], _ publicKey: [UInt8]) -> Bool

    /// The signature of a challenge-signed list and the challenge it answers.
    package struct ChallengeSignature: Hashable, Sendable {
        package var challenge: String
        /// `X-Cert-Pinning-Signature`, base64.
        package var signature: String

        package init(challenge: String, signature: String) {
            self.challenge = challenge
            self.signature = signature
        }
    }

    /// A list larger than this is not a pin list.
    package static let maximumEntries = 10_000
    /// Deeper than any chain pinwatch follows (16 levels).
    static let maximumDepth = 16

    package static func read(
        _ bytes: [UInt8], file: String, publicKey: [UInt8], now: Date, verify: SignatureCheck, signed: ChallengeSignature? = nil,
        downloaded: Bool = false
    ) throws(ClientSourceError) -> ImportedPins {
        if let signed {
            // The SDK checks the bytes as received, before any parsing.
            let message = Array(signed.challenge.utf8) + [UInt8(ascii: "&")] + bytes
            guard let signature = Data(base64Encoded: signed.signature).map(Array.init), verify(message, signature, publicKey) else {
                throw ClientSourceError(
                    file: file, entry: "X-Cert-Pinning-Signature",
                    message: "does not verify over the challenge \(EchoedInput.quoted(signed.challenge)) and the body with the public key "
                        + "\(EchoedInput.quoted(Data(publicKey).base64EncodedString())): the app refuses this list")
            }
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            let debug = (error as NSError).userInfo["NSDebugDescription"] as? String
            throw ClientSourceError(file: file, message: "malformed JSON" + (debug.map { ": " + EchoedInput.shortened($0) } ?? ""))
        }
        guard let document = root as? [String: Any], let entries = document["fingerprints"] as? [Any] else {
            throw ClientSourceError(file: file, entry: "fingerprints", message: "missing or not an array: not a signed pin list")
        }
        guard entries.count <= maximumEntries else {
            throw ClientSourceError(file: file, entry: "fingerprints", message: "\(entries.count) entries (at most \(maximumEntries))")
        }
        var imported = ImportedPins(file: file, format: .dynamicList, rules: [])
        var verifiedEntries = 0
        for (index, element) in entries.enumerated() {
            let entry = "fingerprints[\(index)]"
            guard let fields = element as? [String: Any] else {
                throw ClientSourceError(file: file, entry: entry, message: "is not an object")
            }
            guard let name = fields["name"] as? String, let fingerprint = fields["fingerprint"] as? String else {
                throw ClientSourceError(file: file, entry: entry, message: "needs name, fingerprint and expires")
            }
            guard let expiresNumber = fields["expires"] as? NSNumber, let expires = Int64(exactly: expiresNumber.doubleValue) else {
                throw ClientSourceError(file: file, entry: entry + ".expires", message: "expected unix seconds")
            }
            var depth = 0
            if let value = fields["depth"] {
                guard let number = value as? NSNumber, let exact = Int(exactly: number.doubleValue), (0...maximumDepth).contains(exact)
                else {
                    throw ClientSourceError(
                        file: file, entry: entry + ".depth", message: "expected a chain level, 0 (the leaf) to \(maximumDepth)")
                }
                depth = exact
            }
            let label = "\(entry) (\(EchoedInput.shortened(name))" + (fields["depth"] == nil ? ")" : ", depth \(depth))")
            guard let digest = Data(base64Encoded: fingerprint).map(Array.init), digest.count == 32 else {
                throw ClientSourceError(file: file, entry: label, message: "fingerprint is not a base64 SHA-256 (32 bytes)")
            }
            if signed == nil {
                guard let signature = fields["signature"] as? String else {
                    throw ClientSourceError(
                        file: file, entry: entry,
                        message: downloaded
                            ? "has no signature, and the response no X-Cert-Pinning-Signature: the app accepts neither"
                            : "has no signature: a challenge-signed list is checked whole; fetch it from its URL, "
                                + "or give the saved list's signature: and challenge:")
                }
                guard let signatureBytes = Data(base64Encoded: signature).map(Array.init),
                    verify(Array("\(name)&\(fingerprint)&\(expires)".utf8), signatureBytes, publicKey)
                else {
                    imported.notes.append(
                        ClientSourceNote(origin: "\(file): \(label)", message: "bad signature: entry ignored (the app ignores it too)"))
                    // The host stays named, with nothing the app accepts: a list
                    // whose every entry fails says "refused", not "not pinned".
                    // Such a rule adds no host to the poll (ClientPolicy.concreteHosts).
                    if HostNameCheck.problem(name.lowercased()) == nil {
                        imported.rules.append(ClientPinRule(domain: name.lowercased(), pins: [], origin: "\(file): \(label)"))
                    }
                    continue
                }
            }
            verifiedEntries += 1
            let expiry = Date(timeIntervalSince1970: TimeInterval(expires))
            if expiry <= now {
                imported.notes.append(
                    ClientSourceNote(origin: "\(file): \(label)", message: "expired \(DateText.iso8601(expiry)): no longer counts"))
            }
            let domain = name.lowercased()
            guard HostNameCheck.problem(domain) == nil else {
                throw ClientSourceError(file: file, entry: label, message: "name is not a host name")
            }
            imported.rules.append(
                ClientPinRule(
                    domain: domain, pins: [Pin(kind: .cert, digest: digest, text: "cert:" + PinText.hex(digest))],
                    expiration: expiry, origin: "\(file): \(label)", depth: depth))
        }
        // One forged entry is an attack the app shrugs off; none verifying
        // at all is a key that is not the app's, and an empty stanza would
        // hide it.
        if !entries.isEmpty, verifiedEntries == 0 {
            throw ClientSourceError(
                file: file, entry: "fingerprints",
                message: "no entry's signature verifies with the public key \(EchoedInput.quoted(Data(publicKey).base64EncodedString())): "
                    + "is it the key the app verifies this list with?")
        }
        return imported
    }
}
