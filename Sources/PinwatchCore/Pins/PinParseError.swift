/// Why a pin string was rejected.
///
/// The loader turns it into a configuration problem that also names the
/// host and the pin, so the message itself only says what is wrong.
public enum PinParseError: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    /// The prefix is none of DESIGN §3's forms.
    case unknownForm(String)
    /// `file:` pins need the file system and are expanded by the loader.
    case fileForm
    case badBase64
    case badHex
    /// The digest decoded, but not to the 32 bytes of a SHA-256.
    case wrongLength(Int)
    /// A `sha1/` digest that is not 20 bytes.
    case wrongSHA1Length(Int)

    public var description: String {
        switch self {
        case .empty:
            return "empty pin"
        case .unknownForm(let prefix):
            return "unknown pin form \(EchoedInput.quoted(prefix)) (expected sha256/, sha1/, spki:, key:, cert: or file:)"
        case .fileForm:
            return "file: pins are only allowed in a configuration file"
        case .badBase64:
            return "digest is not valid base64"
        case .badHex:
            return "digest is not valid hex"
        case .wrongLength(let count):
            // 64 hex digits read as base64 give 48 bytes: a hex digest
            // written after sha256/.
            let hint = count == 48 ? " (a hex digest? write it as spki:HEX)" : ""
            return "digest is \(count) bytes, a SHA-256 digest is 32\(hint)"
        case .wrongSHA1Length(let count):
            return "digest is \(count) bytes, a SHA-1 digest is 20"
        }
    }
}
