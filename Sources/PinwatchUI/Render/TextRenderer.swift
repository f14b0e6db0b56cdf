/// A Frame as plain text: no escape sequences at all, trailing spaces trimmed.
package enum TextRenderer {
    package static func render(_ frame: Frame) -> String {
        var output = ""
        for row in 0..<frame.height {
            var line = frame.text(ofRow: row)
            while line.last == " " { line.removeLast() }
            output += line + "\n"
        }
        return output
    }
}
