import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor
import PinwatchProbe
import PinwatchService
import PinwatchUI

/// How `snapshot` and `demo --snapshot` print one cycle, and the options
/// that choose it.
struct SnapshotOutput: ParsableArguments {
    @Option(
        help: """
            Output format: text, ansi, json, prometheus (text exposition, for node_exporter's textfile collector), \
            or svg and html (the screen as a standalone picture for runbooks).
            """)
    var format: SnapshotFormat = .text

    @Option(help: ArgumentHelp("Width of the text/ansi screen (default: the terminal's, else 120).", valueName: "columns"))
    var width: Int?

    @OptionGroup var display: DisplayOptions

    func validate() throws {
        if let width, !(20...1000).contains(width) {
            throw ValidationError("--width must be between 20 and 1000 columns")
        }
    }

    /// Runs one cycle and prints it: the dashboard's own Frame for runbooks
    /// (text, ANSI, or a standalone SVG or HTML picture in `theme`'s
    /// colours), the versioned JSON, or Prometheus text.
    func printCycle(
        config: Config, environment: [String: String], theme: Theme, history: HostHistoryRecorder?,
        acknowledgements: AcknowledgementLedger? = nil
    ) throws {
        try Self.printCycle(
            format: format, width: width, config: config, environment: environment, theme: theme, history: history,
            acknowledgements: acknowledgements, display: display.choice(config: config, environment: environment))
    }

    /// `printCycle` on plain values, for the `snapshot` lines read without ArgumentParser.
    static func printCycle(
        format: SnapshotFormat, width: Int?, config: Config, environment: [String: String], theme: Theme, history: HostHistoryRecorder?,
        acknowledgements: AcknowledgementLedger? = nil, display: DisplayChoice = DisplayChoice()
    ) throws {
        let started = Date()
        let ct = try CTRuntime.steppedOnce(config, history: history)
        let reports = HostPoller(
            config: config, environment: environment, history: history, acknowledgements: acknowledgements, ct: ct
        ).runCycle()
        let now = Date()
        switch format {
        case .prometheus:
            let cycle = PrometheusExposition.Cycle(
                finishedAt: now, duration: now.timeIntervalSince(started), completedCycles: 1, ctLogs: ct?.logStates)
            Output.standardOutput(
                PrometheusExposition.render(
                    reports, cycle: cycle, version: PinwatchVersion.current, vantage: config.vantage,
                    deprecatedSeries: config.deprecatedSeries))
        case .json:
            Output.streamJSON(reports, generatedAt: now, vantage: config.vantage)
        case .text, .ansi, .svg, .html:
            var state = DashboardState.make(config: config, environment: environment, themeName: theme.name, display: display)
            state.record(cycle: reports, at: now)
            printScreen(state, format: format, width: width, theme: theme, now: now)
        }
    }

    /// The dashboard's Frame as text, ANSI, SVG or HTML: a local cycle's,
    /// or a fleet's read from Prometheus (`snapshot --prometheus`).
    static func printScreen(_ state: DashboardState, format: SnapshotFormat, width: Int?, theme: Theme, now: Date) {
        let screen: SnapshotScreen.Format
        let width = width ?? TTY.columns() ?? 120
        switch format {
        case .ansi: screen = .ansi
        case .svg: screen = .svg
        case .html: screen = .html
        default:
            // Text is written as its rows are drawn: a fleet's table can be
            // far taller than a frame worth holding whole.
            SnapshotScreen.writeText(state, width: width, now: now) { Output.standardOutput($0) }
            return
        }
        Output.standardOutput(SnapshotScreen.render(state, format: screen, width: width, theme: theme, now: now))
    }
}

enum SnapshotFormat: String, ExpressibleByArgument, CaseIterable {
    case text, ansi, json, prometheus, svg, html

    /// Formats drawn in a theme's colours.
    var usesTheme: Bool { self == .ansi || self == .svg || self == .html }
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
