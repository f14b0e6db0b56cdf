import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchUI

extension Pinwatch {
    /// One poll cycle rendered once: the dashboard's own Frame for runbooks,
    /// or DESIGN §8's JSON for scripts.
    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run one poll cycle and print it once: the dashboard screen (text, ansi) or data (json).",
            discussion: """
                text is the dashboard's screen without escape sequences (for runbooks and tickets); \
                ansi is the same with the theme's colours; json is the versioned schema of DESIGN §8 \
                (hosts in configuration order).
                """
        )

        @OptionGroup var options: ConfigOptions

        @Option(help: "Output format: text, ansi or json.")
        var format: SnapshotFormat = .text

        @Option(help: ArgumentHelp("Width of the text/ansi screen (default: the terminal's, else 120).", valueName: "columns"))
        var width: Int?

        @Option(help: ArgumentHelp("Theme for ansi: a name or a path to a YAML file.", valueName: "name|path"))
        var theme: String?

        func validate() throws {
            if let width, !(20...1000).contains(width) {
                throw ValidationError("--width must be between 20 and 1000 columns")
            }
        }

        func run() throws {
            try reportingFailures {
                let config = try options.load()
                let environment = ProcessInfo.processInfo.environment
                // Load the theme before probing: a bad theme must not cost a cycle.
                let chosenTheme = format == .ansi ? try ThemeChoice.load(requested: theme, config: config, colorCount: 256) : nil
                let reports = PollCycle.run(config, environment: environment)
                let now = Date()
                switch format {
                case .json:
                    Output.streamJSON(reports, generatedAt: now)
                case .text, .ansi:
                    var state = DashboardState.make(config: config, environment: environment, themeName: chosenTheme?.name ?? config.theme)
                    state.record(cycle: reports, at: now)
                    let frame = DashboardLayout.snapshotFrame(for: state, width: width ?? TTY.columns() ?? 120, now: now)
                    if let chosenTheme {
                        Output.standardOutput(ANSIRenderer.render(frame, theme: chosenTheme))
                    } else {
                        Output.standardOutput(TextRenderer.render(frame))
                    }
                }
            }
        }
    }
}

enum SnapshotFormat: String, ExpressibleByArgument, CaseIterable {
    case text, ansi, json
}

extension DashboardState {
    /// A whole cycle at once, as `snapshot` and `demo --snapshot` have it.
    mutating func record(cycle reports: [HostReport], at date: Date) {
        beginCycle(total: reports.count, at: date)
        for (index, report) in reports.enumerated() {
            record(report, forHost: index, at: date)
        }
        finishCycle(at: date)
    }
}
