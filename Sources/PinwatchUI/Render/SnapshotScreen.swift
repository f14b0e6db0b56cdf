import Foundation
import PinwatchCore

/// The screens commands print instead of painting them: `snapshot`'s table
/// and `inspect`'s detail view, as text, ANSI, or a standalone SVG or HTML
/// picture titled with what it shows and when. One place, so that the
/// commands and the golden files render alike.
package enum SnapshotScreen {
    package enum Format: Sendable {
        case text, ansi, svg, html
    }

    /// `snapshot`: the table, tall enough for every row.
    package static func render(_ state: DashboardState, format: Format, width: Int, theme: Theme, now: Date) -> String {
        draw(
            DashboardLayout.snapshotFrame(for: state, width: width, now: now), format: format, theme: theme,
            title: "pinwatch snapshot \(DateText.iso8601(now))")
    }

    /// `snapshot --format text`: `render`'s text, handed to `write` a block
    /// of rows at a time as they are drawn.
    package static func writeText(_ state: DashboardState, width: Int, now: Date, rowsPerBlock: Int = 1_000, _ write: (String) -> Void) {
        DashboardLayout.snapshotFrames(for: state, width: width, now: now, rowsPerFrame: rowsPerBlock) { frame, rows in
            write(TextRenderer.render(frame, rows: rows))
        }
    }

    /// `inspect --format svg|html`: the detail view of host `hostIndex`.
    package static func renderDetail(
        _ state: DashboardState, hostIndex: Int, format: Format, width: Int, theme: Theme, now: Date
    ) -> String {
        let name = state.hosts.indices.contains(hostIndex) ? state.hosts[hostIndex].displayName : "?"
        return draw(
            DashboardLayout.detailSnapshotFrame(for: state, hostIndex: hostIndex, width: width, now: now), format: format, theme: theme,
            title: "pinwatch inspect \(name) \(DateText.iso8601(now))")
    }

    private static func draw(_ frame: Frame, format: Format, theme: Theme, title: String) -> String {
        switch format {
        case .text: return TextRenderer.render(frame)
        case .ansi: return ANSIRenderer.render(frame, theme: theme)
        case .svg: return PictureRenderer.svg(frame, theme: theme, title: title)
        case .html: return PictureRenderer.html(frame, theme: theme, title: title)
        }
    }
}
