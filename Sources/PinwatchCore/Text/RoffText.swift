import Foundation

/// Text made safe for a roff (mdoc) manual page: a backslash or a line
/// starting with `.` or `'` would be read as a request, and a raw non-ASCII
/// byte turns into garbage under `LANG=C`, where man renders for an ASCII
/// device. Every non-ASCII character becomes a glyph escape instead, and
/// `glyphFallbacks` gives groff an ASCII stand-in for the ones it cannot
/// draw there.
package enum RoffText {
    /// Glyphs groff knows by name, each with an ASCII form of its own.
    private static let namedGlyphs: [Unicode.Scalar: String] = [
        "\u{2014}": "\\(em", "\u{2013}": "\\(en", "\u{2264}": "\\(<=", "\u{2265}": "\\(>=", "\u{2191}": "\\(ua",
        "\u{2193}": "\\(da", "\u{2192}": "\\(->", "\u{2190}": "\\(<-", "\u{00D7}": "\\(mu", "\u{2026}": "\\&...",
        "\u{2018}": "\\(oq", "\u{2019}": "\\(cq", "\u{201C}": "\\(lq", "\u{201D}": "\\(rq",
    ]

    /// What an ASCII device shows for the glyphs groff has no ASCII form
    /// of; any other is shown as `?`.
    private static let asciiStandIns: [Unicode.Scalar: String] = [
        "\u{2713}": "v", "\u{2717}": "x", "\u{26A0}": "!", "\u{25CF}": "*", "\u{2070}": "0", "\u{2079}": "9",
    ]

    /// One line of running text (no newline in it is kept: each becomes a
    /// space, so the text cannot start a request on a line of its own).
    package static func line(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "\n", "\r", "\t": out += " "
            case _ where TerminalText.isControl(scalar): continue
            case _ where scalar.isASCII: out.unicodeScalars.append(scalar)
            default: out += namedGlyphs[scalar] ?? unicodeEscape(scalar)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    /// Paragraphs (split at blank lines) as escaped lines joined by `.Pp`,
    /// each sentence starting a line of its own (mdoc's rule: the
    /// formatter then knows where a sentence ends) and lines kept short.
    package static func paragraphs(_ text: String, width: Int = 78) -> [String] {
        let blocks = text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        var lines: [String] = []
        for block in blocks where !block.isEmpty {
            if !lines.isEmpty { lines.append(".Pp") }
            for sentence in sentences(line(block)) {
                lines += wrap(sentence, width: width)
            }
        }
        return lines
    }

    /// Splits escaped text after `.`, `?` or `!` followed by a space and a
    /// capital letter.
    private static func sentences(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            current.append(character)
            if ".?!".contains(character), index + 2 < characters.count, characters[index + 1] == " ",
                characters[index + 2].isUppercase
            {
                result.append(current)
                current = ""
                index += 2
                continue
            }
            index += 1
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// Breaks at spaces (never inside an escape, which holds none), each
    /// line guarded against starting a request.
    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }
    }

    /// Requests that define an ASCII stand-in for every `\[uXXXX]` glyph
    /// in `page`, used only on a device without it (`.if n`, `!c`); mandoc
    /// draws these glyphs itself and skips the requests.
    package static func glyphFallbacks(for page: String) -> [String] {
        var seen = Set<String>()
        var requests: [String] = []
        var rest = Substring(page)
        while let start = rest.range(of: "\\[u") {
            rest = rest[start.upperBound...]
            let hex = rest.prefix { $0.isHexDigit }
            guard rest.dropFirst(hex.count).first == "]", let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value)
            else { continue }
            let name = "u" + hex
            guard seen.insert(name).inserted else { continue }
            requests.append(".if n .if !c\\[\(name)] .char \\[\(name)] \(asciiStandIns[scalar] ?? "?")")
        }
        return requests
    }

    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
    }
}
