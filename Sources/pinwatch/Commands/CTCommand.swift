import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchMonitor

extension Pinwatch {
    /// What Certificate Transparency logged for the watched hosts, judged
    /// per release: one step of the configured logs from where the state
    /// file says they were.
    struct CTCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ct",
            abstract: "Show what Certificate Transparency logged for each watched host, with its verdict per release (text, json).",
            discussion: """
                Needs ct: {logs: FILE or built-in} (or search: URL) in the config. Runs one step of every log in the list from the position the \
                history store keeps (state: in the config, --state, else $XDG_STATE_HOME/pinwatch/state.sqlite) and \
                saves what it found; the first run starts at each log's size of the day (a log's history is never \
                read). Each unexpired certificate or precertificate logged for a host's name, this run's and \
                earlier ones (the 20 newest), is listed with its issuer, validity and the client releases that \
                survive or break on it. With HOST only that host (its name or sni). With --state off nothing is \
                kept, and every run starts again at the logs' size of the day.
                """
        )

        @Argument(help: ArgumentHelp("Only this host (its name or sni).", valueName: "host"))
        var host: String?

        @Option(help: "Output format: text or json.")
        var format: HistoryFormat = .text

        @OptionGroup var options: ConfigOptions

        @OptionGroup var history: StateOptions

        func run() throws {
            try reportingFailures {
                let config = try options.load()
                guard config.ct?.logList != nil || config.ct?.search != nil else {
                    throw UserFacingError(
                        message:
                            "ct: nothing to follow: add ct: {logs: built-in} (or a v3 log list file, or search: URL) to the config")
                }
                var hosts = config.hosts
                if let host {
                    let wanted = host.lowercased()
                    hosts = hosts.filter { $0.host.lowercased() == wanted || $0.serverName.lowercased() == wanted }
                    guard !hosts.isEmpty else {
                        throw UserFacingError(message: "ct: no configured host named \(EchoedInput.quoted(host))")
                    }
                }
                let store = try history.openForOneShot(config) { Output.standardError($0) }
                guard let ct = try CTRuntime.steppedOnce(config, history: store) else { return }
                let listed = hosts.map { CTListing.Host(config: $0, facts: ct.facts(for: $0.serverName)) }
                switch format {
                case .text: Output.standardOutput(CTListing.text(listed, logs: ct.logStates))
                case .json: Output.standardOutput(CTListing.json(listed, logs: ct.logStates, generatedAt: Date()))
                }
            }
        }
    }
}
