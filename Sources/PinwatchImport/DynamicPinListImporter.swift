import Foundation
import PinwatchCore

/// A signed dynamic pin list in WultraSSLPinning's format:
/// `{"fingerprints":[{"name","fingerprint","expires","signature"}]}`, each
/// entry signed (ECDSA P-256, SHA-256, DER signature in base64) over
/// `name + "&" + fingerprint + "&" + expires`. The fingerprint is the
/// SHA-256 of the leaf certificate's DER.
public enum DynamicPinListImporter {
    /// Checks one signature: message, DER signature, the app's public key
    /// (uncompressed point). Injected: signatures need OpenSSL.
    public typealias SignatureCheck = @Sendable (_ message: [UInt8], _ signature: [UInt8], _ publicKey: [UInt8]) -> Bool

    /// A list larger than this is not a pin list.
    public static let maximumEntries = 10_000

    public static func read(
        _ bytes: [UInt8], file: String, publicKey: [UInt8], now: Date, verify: SignatureCheck
    ) throws(ClientSourceError) -> ImportedPins {
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
            guard let name = fields["name"] as? String, let fingerprint = fields["fingerprint"] as? String,
                let signature = fields["signature"] as? String
            else {
                throw ClientSourceError(file: file, entry: entry, message: "needs name, fingerprint, expires and signature")
            }
            guard let expiresNumber = fields["expires"] as? NSNumber, let expires = Int64(exactly: expiresNumber.doubleValue) else {
                throw ClientSourceError(file: file, entry: entry + ".expires", message: "expected unix seconds")
            }
            let label = "\(entry) (\(EchoedInput.shortened(name)))"
            guard let digest = Data(base64Encoded: fingerprint).map(Array.init), digest.count == 32 else {
                throw ClientSourceError(file: file, entry: label, message: "fingerprint is not a base64 SHA-256 (32 bytes)")
            }
            let signed = Array("\(name)&\(fingerprint)&\(expires)".utf8)
            guard let signatureBytes = Data(base64Encoded: signature).map(Array.init),
                verify(signed, signatureBytes, publicKey)
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
                    expiration: expiry, origin: "\(file): \(label)"))
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
