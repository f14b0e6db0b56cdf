/// The single choke point for untrusted text on its way to a terminal.
///
/// Certificates and servers choose their own strings; a subject with an
/// escape sequence could repaint the screen, set the window title or write
/// to the clipboard of whoever looks at it. Every control character of
/// `isControl`, and the invisible or reordering characters of
/// `isHiddenFormatting`, are replaced by `�`; tabs and newlines become
/// spaces because every field is shown on one line.
public enum TerminalText {
    public static func sanitize(_ text: String) -> String {
        // Most text (host names, most subjects) is printable ASCII already:
        // tested over its bytes under one access, not through the generic
        // sequence of bytes (every label of a fleet's answers comes here).
        if isPrintableASCII(text.utf8.span) { return text }
        var out = String.UnicodeScalarView()
        out.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D:
                out.append(" ")
            case _ where isControl(scalar) || isHiddenFormatting(scalar):
                out.append("\u{FFFD}")
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    private static func isPrintableASCII(_ bytes: Span<UInt8>) -> Bool {
        for index in bytes.indices where bytes[index] < 0x20 || bytes[index] >= 0x7F { return false }
        return true
    }

    /// The one rule for a control character, used by every sanitiser and
    /// every input filter: C0, DEL, C1 (U+0085 among them), and the line
    /// and paragraph separators (Zl, Zp: U+2028, U+2029), which YAML,
    /// JavaScript and some terminals take for a line break.
    /// U+2028 and U+2029 are the whole of Zl and Zp (a test holds the
    /// rule to every scalar's category), so no property is looked up.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// Characters that print nothing or reorder what is around them: the
    /// bidirectional marks, embeddings, overrides and isolates, zero-width
    /// spaces and joiners, the BOM, soft hyphen, Mongolian vowel separator,
    /// interlinear annotations and Unicode tag characters. A certificate
    /// name with them can look like another name.
    public static func isHiddenFormatting(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x061C, 0x180E, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x206F,
            0xFEFF, 0xFFF9...0xFFFB, 0xE0000...0xE007F:
            return true
        default:
            return false
        }
    }
}
