/// The one escape for untrusted text on its way into a file pinwatch
/// writes for someone to load: a configuration (`init`), a stanza to paste
/// (`inspect`, the dashboard's `y`, `preflight --format stanza`) or an
/// import's pin sets.
///
/// YAML breaks lines at more than LF and CR: U+0085, U+2028 and U+2029 end
/// a comment too, so a certificate subject holding one would write the
/// keys that follow it. Only printable ASCII (0x20–0x7E) is written as it
/// is; every other scalar becomes the escape a YAML double-quoted scalar
/// reads back (`\x85`, `\u2028`, `\U0001F600`), which in a comment shows
/// what was there without being it.
package enum FileText {
    /// `text` for a `# …` comment: one line of printable ASCII.
    package static func comment(_ text: String) -> String {
        escaped(text, quoting: false)
    }

    /// `text` as a YAML double-quoted scalar that reads back as `text`.
    package static func doubleQuoted(_ text: String) -> String {
        "\"" + escaped(text, quoting: true) + "\""
    }

    /// Whether `text` is written unchanged by `comment`.
    package static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy(isPrintable)
    }

    private static func isPrintable(_ byte: UInt8) -> Bool { byte >= 0x20 && byte <= 0x7E }

    /// `quoting` also escapes `"` and `\`, which a double-quoted scalar
    /// would read as its end or an escape; a comment keeps them (a subject
    /// in RFC 2253 form holds `\,`).
    private static func escaped(_ text: String, quoting: Bool) -> String {
        if isPrintableASCII(text) && !(quoting && text.utf8.contains { $0 == 0x22 || $0 == 0x5C }) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"" where quoting: out += "\\\""
            case "\\" where quoting: out += "\\\\"
            case _ where scalar.isASCII && isPrintable(UInt8(scalar.value)): out.unicodeScalars.append(scalar)
            default: out += escape(scalar)
            }
        }
        return out
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        let (prefix, digits) = scalar.value <= 0xFF ? ("\\x", 2) : scalar.value <= 0xFFFF ? ("\\u", 4) : ("\\U", 8)
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return prefix + String(repeating: "0", count: digits - hex.count) + hex
    }
}
