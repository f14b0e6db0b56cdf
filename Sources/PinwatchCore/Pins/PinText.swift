import Foundation

/// Digests written the way pins are written.
///
/// Reports, `inspect` and the config stanza must print a pin in exactly the
/// form a user can paste back into the configuration, so all formatting
/// goes through here.
public enum PinText {
    /// `sha256/BASE64` (RFC 7469) of an SPKI digest (already hashed: Core
    /// does no cryptography).
    public static func sha256(_ spki: [UInt8]) -> String {
        "sha256/" + base64(spki)
    }

    public static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Lowercase, as `cert_sha256` in the JSON report; colons for humans.
    public static func hex(_ bytes: [UInt8], colons: Bool = false) -> String {
        // Bytes, then one String: appending Characters one by one cost a
        // snapshot per host (Benchmarks/README.md, "Figures moved out of
        // code comments").
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        for (index, byte) in bytes.enumerated() {
            if colons && index > 0 { out.append(UInt8(ascii: ":")) }
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Accepts missing padding, as pins copied from some tools lack it.
    static func decodeBase64(_ text: String) -> [UInt8]? {
        var padded = text
        let remainder = padded.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { padded += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }

    /// Accepts colons anywhere and either case (`openssl x509 -fingerprint`).
    static func decodeHex(_ text: String) -> [UInt8]? {
        let digits = text.filter { $0 != ":" }
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for character in digits {
            guard character.isASCII, let value = character.hexDigitValue else { return nil }
            if let first = high {
                bytes.append(first << 4 | UInt8(value))
                high = nil
            } else {
                high = UInt8(value)
            }
        }
        return bytes
    }
}

/// Every pin form of one certificate, for `inspect`, `pin` and the dashboard.
public struct PinForms: Hashable, Sendable {
    /// `sha256/BASE64` of the SPKI: the form most clients use.
    public var sha256: String
    /// `spki:HEX`.
    public var spki: String
    /// `key:BASE64` (iOS `SecKeyCopyExternalRepresentation`).
    public var key: String
    /// `cert:HEX` (`openssl x509 -fingerprint -sha256`, without colons).
    public var cert: String

    public init(_ facts: CertificateFacts) {
        sha256 = PinText.sha256(facts.spkiSHA256)
        spki = "spki:" + PinText.hex(facts.spkiSHA256)
        key = "key:" + PinText.base64(facts.keySHA256)
        cert = "cert:" + PinText.hex(facts.certSHA256)
    }

    /// In the order they are shown.
    public var all: [String] { [sha256, spki, key, cert] }
}
