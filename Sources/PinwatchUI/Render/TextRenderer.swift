/// A Frame as plain text: no escape sequences at all, trailing spaces trimmed.
package enum TextRenderer {
    package static func render(_ frame: Frame) -> String {
        render(frame, rows: 0..<frame.height)
    }

    /// Only `rows` of the frame.
    package static func render(_ frame: Frame, rows: Range<Int>) -> String {
        var output = ""
        for row in rows {
            var line = frame.text(ofRow: row)
            while line.last == " " { line.removeLast() }
            output += line + "\n"
        }
        return output
    }
}
