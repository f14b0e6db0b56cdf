import PinwatchCore

/// A Frame as a standalone picture for runbooks and tickets: the very same
/// cells the dashboard and `snapshot --format text` show, in the theme's
/// colours, as selectable monospace text (SVG) or a `<pre>` (HTML), with
/// no fonts, scripts or links to fetch.
///
/// Cell text was sanitised when it entered the Frame; here it is escaped for
/// XML, so a certificate subject with `<script>` or `]]>` stays text.
package enum PictureRenderer {
    /// A dark terminal's default colours, which the themes assume.
    static let defaultForeground = PictureColors.hex(PictureColors.defaultForeground)
    static let defaultBackground = PictureColors.hex(PictureColors.defaultBackground)
    static let cellWidth = 8.43
    static let cellHeight = 17.0
    static let fontSize = 14

    package static func svg(_ frame: Frame, theme: Theme, title: String = "pinwatch") -> String {
        let width = Double(frame.width) * cellWidth + 16
        let height = Double(frame.height) * cellHeight + 16
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(format(width))" height="\(format(height))" \
            viewBox="0 0 \(format(width)) \(format(height))" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" \
            font-size="\(fontSize)">
            <title>\(escape(title))</title>
            <rect width="100%" height="100%" fill="\(defaultBackground)"/>

            """
        for row in 0..<frame.height {
            let runs = self.runs(in: frame, row: row, theme: theme)
            let top = 8 + Double(row) * cellHeight
            for run in runs where run.background != nil {
                out += "<rect x=\"\(format(8 + Double(run.column) * cellWidth))\" y=\"\(format(top))\" "
                out += "width=\"\(format(Double(run.width) * cellWidth))\" height=\"\(format(cellHeight))\" fill=\"\(run.background!)\"/>\n"
            }
            let visible = runs.filter { !$0.text.allSatisfy { $0 == " " } }
            guard !visible.isEmpty else { continue }
            out += "<text y=\"\(format(top + cellHeight * 0.78))\" xml:space=\"preserve\">"
            for run in visible {
                out += "<tspan x=\"\(format(8 + Double(run.column) * cellWidth))\" fill=\"\(run.foreground)\""
                if run.bold { out += " font-weight=\"bold\"" }
                if run.underline { out += " text-decoration=\"underline\"" }
                out += ">\(escape(run.text))</tspan>"
            }
            out += "</text>\n"
        }
        return out + "</svg>\n"
    }

    package static func html(_ frame: Frame, theme: Theme, title: String = "pinwatch") -> String {
        var out = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(title))</title>
            <style>
            body { margin: 0; background: \(defaultBackground); }
            pre { margin: 0; padding: 8px; color: \(defaultForeground); font: \(fontSize)px/\(format(cellHeight))px "DejaVu Sans Mono", Menlo, Consolas, monospace; }
            </style>
            </head>
            <body>
            <pre>
            """
        for row in 0..<frame.height {
            for run in runs(in: frame, row: row, theme: theme) {
                var style = "color:\(run.foreground)"
                if let background = run.background { style += ";background:\(background)" }
                if run.bold { style += ";font-weight:bold" }
                if run.underline { style += ";text-decoration:underline" }
                out += "<span style=\"\(style)\">\(escape(run.text))</span>"
            }
            out += "\n"
        }
        return out + "</pre>\n</body>\n</html>\n"
    }

    /// Consecutive cells of one look, with the column they start at.
    struct Run {
        var column: Int
        var width: Int
        var text: String
        var foreground: String
        var background: String?
        var bold: Bool
        var underline: Bool
    }

    static func runs(in frame: Frame, row: Int, theme: Theme) -> [Run] {
        var runs: [Run] = []
        for (column, cell) in frame.row(row).enumerated() {
            // The second half of a wide character belongs to the cell before.
            if cell.text.isEmpty {
                if !runs.isEmpty { runs[runs.count - 1].width += 1 }
                continue
            }
            let look = theme.appearance(for: cell.style)
            let colours = PictureColors.pair(for: look)
            let foreground = PictureColors.hex(colours.foreground)
            let background = colours.background.map(PictureColors.hex)
            if var last = runs.last, last.foreground == foreground, last.background == background, last.bold == look.bold,
                last.underline == look.underline, last.column + last.width == column
            {
                last.text += cell.text
                last.width += 1
                runs[runs.count - 1] = last
            } else {
                runs.append(
                    Run(
                        column: column, width: 1, text: cell.text, foreground: foreground, background: background, bold: look.bold,
                        underline: look.underline))
            }
        }
        return runs
    }

    /// XML and HTML text and attribute escaping, after the terminal's rule
    /// for control characters (a title is not drawn through the frame, and
    /// XML allows no C0 control at all).
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in TerminalText.sanitize(text) {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    private static func format(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
