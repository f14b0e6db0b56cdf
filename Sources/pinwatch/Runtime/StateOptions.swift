import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchHistory

/// `--state`: where the commands that poll keep their history.
struct StateOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "History store file, or off (default: state: in the config, else $XDG_STATE_HOME/pinwatch/state.sqlite).",
            valueName: "path|off"),
        completion: .file())
    var state: String?

    /// The store for a long-running command: any problem ends the command.
    func openForWatching(_ config: Config) throws -> HistoryStore? {
        do {
            return try HistoryStore.open(config.state, override: state, historyDays: config.historyDays, catalogue: config.catalogue)
        } catch {
            throw UserFacingError(message: error.description)
        }
    }

    /// The store for a one-shot command: while a `watch` or `serve` holds
    /// it, the cycle is simply not recorded (`note` says so, or nothing).
    /// The same when nobody asked for a state file and the default place
    /// cannot hold one (a monitoring user without a writable home): a
    /// `check` must not turn UNKNOWN over a history it was never given.
    func openForOneShot(_ config: Config, note: ((String) -> Void)?) throws -> HistoryStore? {
        try Self.openForOneShot(config, override: state, note: note)
    }

    /// `openForOneShot` on a plain `--state` value, for the `check` lines read without ArgumentParser.
    static func openForOneShot(_ config: Config, override state: String?, note: ((String) -> Void)?) throws -> HistoryStore? {
        let chosenByUser = state != nil || config.state != .automatic
        do {
            return try HistoryStore.open(config.state, override: state, historyDays: config.historyDays, catalogue: config.catalogue)
        } catch {
            guard error.isInUse || (error.isUnavailable && !chosenByUser) else { throw UserFacingError(message: error.description) }
            note?("pinwatch: history not recorded: \(error.description)")
            return nil
        }
    }
}
