/// The single choke point for untrusted text on its way to a terminal.
///
/// Certificates and servers choose their own strings; a subject with an
/// escape sequence could repaint the screen, set the window title or write
/// to the clipboard of whoever looks at it. Every C0 and C1 control
/// character, DEL, and the bidirectional overrides that can reorder what a
/// reader sees are replaced by `�`; tabs and newlines become spaces because
/// every field is shown on one line.
public enum TerminalText {
    public static func sanitize(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        out.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D:
                out.append(" ")
            case 0x00...0x1F, 0x7F...0x9F:
                out.append("\u{FFFD}")
            case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                out.append("\u{FFFD}")
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }
}
