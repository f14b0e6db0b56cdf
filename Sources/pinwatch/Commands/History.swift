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
            abstract: "Show a host's recorded timeline: chain changes, status changes and the renewal forecast.",
            discussion: """
                Reads the history store that watch, serve, snapshot and check write (state: in the config, \
                --state, else $XDG_STATE_HOME/pinwatch/state.sqlite); works while a watch or serve runs. \
                Without :PORT every recorded port of HOST is shown.
                """
        )

        @Argument(help: ArgumentHelp("The host, as configured.", valueName: "host[:port]"))
        var target: String

        @Option(help: "Output format: text or json.")
        var format: HistoryFormat = .text

        @OptionGroup var options: ConfigOptions

        @OptionGroup var history: StateOptions

        func run() throws {
            try reportingFailures {
                let (host, port) = try Self.parse(target)
                let config: Config? = options.config == nil ? try? options.load() : try options.load()
                let store: HistoryStore?
                do {
                    store = try HistoryStore.open(
                        config?.state ?? .automatic, override: history.state, historyDays: config?.historyDays ?? 400, mode: .reader)
                } catch {
                    throw UserFacingError(message: "\(error)")
                }
                guard let store else { throw UserFacingError(message: "history is off (state: off): nothing is recorded") }
                let timelines: [HostTimeline]
                do {
                    timelines = try store.timelines(host: host, port: port)
                } catch {
                    throw UserFacingError(message: "\(error)")
                }
                guard !timelines.isEmpty else {
                    let name = port.map { "\(host):\($0)" } ?? host
                    throw UserFacingError(message: "no history for \(EchoedInput.quoted(name)) in \(store.path)", code: 1)
                }
                switch format {
                case .text: Output.standardOutput(HistoryReport.text(timelines))
                case .json: Output.standardOutput(HistoryReport.json(timelines))
                }
            }
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
