/// How many terminal cells a piece of text occupies.
///
/// Terminals give East Asian wide characters and emoji two cells and
/// combining marks none; a layout that counted `Character`s would misalign
/// every column after a CJK subject. This is a small table, good enough for
/// CJK, Hangul, kana, fullwidth forms and emoji, not a full UAX #11.
package enum DisplayWidth {
    /// Cells for one grapheme cluster: 0, 1 or 2.
    package static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // Nearly every cell is printable ASCII: skip the property lookups.
        if (0x20..<0x7F).contains(first.value), scalars.count == 1 { return 1 }
        if isZeroWidth(first) {
            // A lone mark or joiner; a cluster that starts with one has no base to sit on.
            return scalars.contains(where: { !isZeroWidth($0) }) ? 1 : 0
        }
        if isWide(first) { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        // VS16 turns a text-default emoji (☺, ❤) into its two-cell presentation.
        if first.properties.isEmoji && scalars.contains("\u{FE0F}") { return 2 }
        return 1
    }

    /// Cells for a whole string.
    package static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200B...0x200F, 0x2028...0x202E, 0x2060...0x2064, 0xFE00...0xFE0F, 0xFEFF, 0xE0100...0xE01EF:
            return true
        default:
            break
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control:
            return true
        default:
            return false
        }
    }

    /// East Asian Wide and Fullwidth blocks (UAX #11 `W`/`F`), coarsely.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F,  // Hangul Jamo initials
            0x231A...0x231B, 0x2329...0x232A,
            0x2E80...0x303E,  // CJK radicals, punctuation
            0x3041...0x33FF,  // kana, bopomofo, CJK compatibility
            0x3400...0x4DBF,  // CJK extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F,
            0xAC00...0xD7A3,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6,  // fullwidth forms
            0x20000...0x2FFFD, 0x30000...0x3FFFD:  // CJK extensions B…
            return true
        default:
            return false
        }
    }
}
