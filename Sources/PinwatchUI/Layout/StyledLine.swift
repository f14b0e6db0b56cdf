import PinwatchCore

/// A run of text in one style.
package struct Span: Hashable, Sendable {
    package var text: String
    package var style: Style

    package init(_ text: String, _ style: Style = .normal) {
        self.text = text
        self.style = style
    }
}

/// One line of spans, laid out left to right.
package typealias StyledLine = [Span]

extension Frame {
    /// Draws spans one after another within `maxWidth` cells; the span that
    /// does not fit ends with `…` and the rest are dropped.
    @discardableResult
    mutating func draw(_ line: StyledLine, row: Int, column: Int = 0, maxWidth: Int? = nil) -> Int {
        let limit = min(maxWidth ?? width, width - column)
        var used = 0
        for span in line {
            guard used < limit else { break }
            let needed = DisplayWidth.of(TerminalText.sanitize(span.text))
            let written = put(span.text, row: row, column: column + used, maxWidth: limit - used, style: span.style)
            used += written
            if written < needed { break }
        }
        return used
    }

}
