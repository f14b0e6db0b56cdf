import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchHistory

extension Pinwatch {
    /// What the history store recorded for one host: its chains and
    /// statuses over time, and when its leaf will renew.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Show a host's recorded timeline: chain changes, status changes and the renewal forecast (text, json).",
            discussion: """
                Reads the history store that watch, serve, snapshot and check write (state: in the config, \
                --state, else $XDG_STATE_HOME/pinwatch/state.sqlite); works while a watch or serve runs. \
                Without :PORT every recorded port of HOST is shown. Shows the latest \(HistoryWindow.defaultLimit) entries \
                per host and says how many earlier ones were left out; --limit and --since choose others.
                """
        )

        @Argument(help: ArgumentHelp("The host, as configured.", valueName: "host[:port]"))
        var target: String

        @Option(help: "Output format: text or json.")
        var format: HistoryFormat = .text

        @Option(help: ArgumentHelp("Show at most the latest N entries per host; 0 for all.", valueName: "N"))
        var limit: Int = HistoryWindow.defaultLimit

        @Option(help: ArgumentHelp("Show entries from then on: 7d, 12h, 30m back, or a UTC date or time.", valueName: "when"))
        var since: String?

        @OptionGroup var options: ConfigOptions

        @OptionGroup var history: StateOptions

        func run() throws {
            try reportingFailures {
                let (host, port) = try Self.parse(target)
                let window = try Self.window(since: since, limit: limit, now: Date())
                let config: Config? = options.config == nil ? try? options.load() : try options.load()
                let store: HistoryStore?
                do {
                    store = try HistoryStore.open(
                        config?.state ?? .automatic, override: history.state, historyDays: config?.historyDays ?? 400, mode: .reader,
                        catalogue: config?.catalogue ?? .empty)
                } catch {
                    throw UserFacingError(message: "\(error)")
                }
                guard let store else { throw UserFacingError(message: "history is off (state: off): nothing is recorded") }
                let writer = HistoryReportWriter(format: format == .json ? .json : .text) { Output.standardOutput($0) }
                let hosts: Int
                do {
                    hosts = try store.forEachTimeline(
                        host: host, port: port, window: window, heading: { writer.host($0, omitted: $1) }, entry: writer.entry)
                } catch {
                    throw UserFacingError(message: "\(error)")
                }
                guard hosts > 0 else {
                    let name = port.map { "\(host):\($0)" } ?? host
                    throw UserFacingError(message: "no history for \(EchoedInput.quoted(name)) in \(store.path)", code: 1)
                }
                writer.finish()
            }
        }

        static func window(since: String?, limit: Int, now: Date) throws -> HistoryWindow {
            guard limit >= 0 else { throw UserFacingError(message: "history: --limit must be 0 (all) or more") }
            var from: Date?
            if let since {
                guard let date = HistoryWindow.parseSince(since, now: now) else {
                    throw UserFacingError(
                        message: "history: --since \(EchoedInput.quoted(since)) is not 7d, 12h, 30m, a date (2026-11-01) or a time")
                }
                from = date
            }
            return HistoryWindow(since: from, limit: limit == 0 ? nil : limit)
        }

        /// `host`, and the port when one was written.
        static func parse(_ text: String) throws -> (host: String, port: Int?) {
            do {
                let endpoint = try HostPort(parsing: text)
                return (endpoint.host, endpoint.portWasWritten ? endpoint.port : nil)
            } catch {
                throw UserFacingError(message: "history: \(error.description)")
            }
        }
    }
}

enum HistoryFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
