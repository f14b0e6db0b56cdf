import Foundation

/// What one paint measured of the screen, handed to the state so paging,
/// clicks and scrolling follow what the on-call sees. The layout reads the
/// state; the state never calls the layout.
package struct LayoutMetrics: Hashable, Sendable {
    /// Host rows the table shows at once: the page of PgUp/PgDn.
    package var tableCapacity: Int
    /// The screen row of the table's first host row, for mouse clicks.
    package var firstHostRow: Int
    /// Content lines the detail or client view shows at once.
    package var scrolledCapacity: Int
    /// Lines the detail or client view has before scrolling (0 in the table).
    package var scrolledLineCount: Int
    /// The moment the paint showed (its clock, the one the person reads):
    /// a date typed at the acknowledgement prompt is judged against it, the
    /// state itself having no clock. Nil before the first paint.
    package var paintedAt: Date?

    /// Before the first paint: a 24-row terminal with no banner.
    package init(
        tableCapacity: Int = 20, firstHostRow: Int = 3, scrolledCapacity: Int = 20, scrolledLineCount: Int = 0, paintedAt: Date? = nil
    ) {
        self.tableCapacity = tableCapacity
        self.firstHostRow = firstHostRow
        self.scrolledCapacity = scrolledCapacity
        self.scrolledLineCount = scrolledLineCount
        self.paintedAt = paintedAt
    }
}
