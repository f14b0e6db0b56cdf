import PinwatchCore

/// One terminal cell.
package struct Cell: Hashable, Sendable {
    /// One grapheme cluster, or "" for the second half of a wide character.
    package var text: String
    package var style: Style

    package init(text: String, style: Style = .normal) {
        self.text = text
        self.style = style
    }

    package static let blank = Cell(text: " ")
}

/// A screen's worth of styled cells: what every output draws.
///
/// The dashboard, `snapshot --format text` and `--format ansi` all render the
/// same Frame, so they cannot disagree. `put` is the only way text gets in,
/// and it sanitises, which makes it the single choke point DESIGN §9 asks for.
package struct Frame: Hashable, Sendable {
    package let width: Int
    package let height: Int
    package private(set) var cells: [Cell]

    package init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    package subscript(row: Int, column: Int) -> Cell {
        cells[row * width + column]
    }

    package func row(_ row: Int) -> ArraySlice<Cell> {
        cells[(row * width)..<((row + 1) * width)]
    }

    /// The visible text of one row (wide characters once), trailing spaces kept.
    package func text(ofRow row: Int) -> String {
        self.row(row).map(\.text).joined()
    }

    /// Writes `text` at (row, column) in at most `maxWidth` cells and returns
    /// the number of cells used.
    ///
    /// The text is sanitised first (it may come from a certificate). Text that
    /// does not fit ends with `…`; a wide character is never split, the cell
    /// it would have half-filled stays blank.
    @discardableResult
    package mutating func put(_ text: String, row: Int, column: Int, maxWidth: Int? = nil, style: Style = .normal) -> Int {
        guard row >= 0, row < height, column >= 0, column < width else { return 0 }
        let limit = min(maxWidth ?? width, width - column)
        guard limit > 0 else { return 0 }
        // Only what can show is sanitised and measured: a banner naming
        // thousands of hosts costs what fits on the row, not its length.
        let scalarBudget = limit * 8 + 16
        let isCut = text.unicodeScalars.count > scalarBudget
        let visible = isCut ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(scalarBudget))) : text
        var graphemes: [(Character, Int)] = []
        var total = 0
        for character in TerminalText.sanitize(visible) {
            let cells = DisplayWidth.of(character)
            guard cells > 0 else { continue }
            graphemes.append((character, cells))
            total += cells
            if total > limit { break }
        }
        let overflows = total > limit || isCut
        let budget = overflows ? limit - 1 : limit
        var used = 0
        for (character, cells) in graphemes {
            if used + cells > budget { break }
            setCell(row: row, column: column + used, Cell(text: String(character), style: style))
            if cells == 2 {
                setCell(row: row, column: column + used + 1, Cell(text: "", style: style))
            }
            used += cells
        }
        if overflows {
            // Fill a half-used wide slot too, so the ellipsis sits right after the text.
            setCell(row: row, column: column + used, Cell(text: "…", style: style))
            used += 1
        }
        return used
    }

    /// Paints `style` over a span of cells, keeping their text (selection bars, header bars).
    package mutating func fill(row: Int, from column: Int = 0, width span: Int? = nil, style: Style) {
        guard row >= 0, row < height else { return }
        let start = max(0, column)
        let end = min(width, start + (span ?? width))
        guard start < end else { return }
        for index in (row * width + start)..<(row * width + end) {
            cells[index].style = style
        }
    }

    /// Applies `transform` to the style of every cell of a row (the selection bar).
    package mutating func restyle(row: Int, _ transform: (Style) -> Style) {
        guard row >= 0, row < height else { return }
        for index in (row * width)..<((row + 1) * width) {
            cells[index].style = transform(cells[index].style)
        }
    }

    /// Every glyph in its ASCII stand-in (`ASCIIGlyphs`), for `--ascii` and
    /// a C locale; a wide character becomes `?` in each of its two cells,
    /// so the columns stay where they were.
    package mutating func useASCIIOnly() {
        for index in cells.indices {
            let text = cells[index].text
            if text.isEmpty {
                cells[index].text = "?"
            } else if let character = text.first, text.count == 1, !character.isASCII {
                cells[index].text = String(ASCIIGlyphs.standIn(for: character))
            }
        }
    }

    /// Sets one cell, blanking the other half of any wide character it cuts.
    private mutating func setCell(row: Int, column: Int, _ cell: Cell) {
        guard column >= 0, column < width else { return }
        let index = row * width + column
        if cells[index].text.isEmpty, cell.text.isEmpty == false, column > 0 {
            cells[index - 1] = Cell(text: " ", style: cells[index - 1].style)
        }
        if cell.text.isEmpty == false, column + 1 < width, cells[index + 1].text.isEmpty,
            DisplayWidth.of(cells[index].text) == 2
        {
            cells[index + 1] = Cell(text: " ", style: cells[index + 1].style)
        }
        cells[index] = cell
    }
}
