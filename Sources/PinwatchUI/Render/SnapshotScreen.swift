import Foundation
import PinwatchCore

/// `snapshot`'s screen formats: the dashboard's snapshot frame as text,
/// ANSI, or a standalone SVG or HTML picture titled with its time. One
/// function, so that the command and the golden files render alike.
package enum SnapshotScreen {
    package enum Format: Sendable {
        case text, ansi, svg, html
    }

    package static func render(_ state: DashboardState, format: Format, width: Int, theme: Theme, now: Date) -> String {
        let frame = DashboardLayout.snapshotFrame(for: state, width: width, now: now)
        let title = "pinwatch snapshot \(DateText.iso8601(now))"
        switch format {
        case .text: return TextRenderer.render(frame)
        case .ansi: return ANSIRenderer.render(frame, theme: theme)
        case .svg: return PictureRenderer.svg(frame, theme: theme, title: title)
        case .html: return PictureRenderer.html(frame, theme: theme, title: title)
        }
    }
}
