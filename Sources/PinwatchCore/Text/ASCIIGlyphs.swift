/// The ASCII stand-ins for the glyphs pinwatch draws, for terminals and
/// locales that cannot show them (`LANG=C`, a serial console, `--ascii`).
///
/// One character for one: a screen laid out in cells keeps its columns.
/// Text that is not ours (a certificate's subject in another script) has
/// no stand-in and shows as `?`, as a C locale's tools show it.
public enum ASCIIGlyphs {
    private static let standIns: [Character: Character] = [
        "✓": "+", "✗": "x", "·": ".", "…": "~", "⚠": "!", "○": "o", "●": "*", "•": "*", "×": "x",
        "▼": "v", "▲": "^", "↑": "^", "↓": "v", "←": "<", "→": ">", "⇄": "=", "↔": "=", "▸": ">", "▶": ">",
        "—": "-", "–": "-", "“": "\"", "”": "\"", "‘": "'", "’": "'", "≤": "<", "≥": ">", "≠": "#", "§": "S",
        "─": "-", "━": "-", "│": "|", "┃": "|", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+",
        "┴": "+", "┼": "+", "▏": "|", "▎": "|", "▍": "#", "▌": "#", "▋": "#", "▊": "#", "▉": "#", "█": "#", "▁": "_",
        "▂": "_", "▃": "=", "▄": "=", "▅": "=", "▆": "#", "▇": "#", "░": ":", "▒": "#", "▓": "#", "\u{00A0}": " ",
    ]

    /// `character` itself when it is ASCII, else its stand-in, else `?`.
    public static func standIn(for character: Character) -> Character {
        if character.isASCII { return character }
        return standIns[character] ?? "?"
    }

    public static func transliterate(_ text: String) -> String {
        guard !text.allSatisfy(\.isASCII) else { return text }
        return String(text.map(standIn(for:)))
    }

    /// Whether the locale the environment names shows only ASCII: the
    /// first of LC_ALL, LC_CTYPE and LANG that is set decides, and only a
    /// UTF-8 one shows the glyphs. With none set (a bare ssh session, CI)
    /// the glyphs stay: every terminal pinwatch targets reads UTF-8, and the
    /// dashboard takes C.UTF-8 for itself (`TerminalScreen`).
    public static func localeIsASCII(_ environment: [String: String]) -> Bool {
        let names = ["LC_ALL", "LC_CTYPE", "LANG"]
        guard let locale = names.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { return false }
        let lowered = locale.lowercased()
        return !(lowered.contains("utf-8") || lowered.contains("utf8"))
    }
}
