import ArgumentParser
import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchSystem

/// `--state`: where the commands that poll keep their history.
struct StateOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "History store file, or off (default: state: in the config, else $XDG_STATE_HOME/pinwatch/state.sqlite).",
            valueName: "path|off"),
        completion: .file())
    var state: String?

    /// The store for a long-running command; while another pinwatch (a
    /// `serve` on the same configuration) holds it, the same store read-only,
    /// with the note the dashboard shows for it.
    func openForWatchingOrReading(_ config: Config) throws -> (store: HistoryStore?, readOnlyNote: String?) {
        do {
            return (try HistoryStore.open(config.state, override: state, historyDays: config.historyDays, catalogue: config.catalogue), nil)
        } catch {
            guard error.isInUse, let reader = Self.openReadOnly(config, override: state) else {
                throw UserFacingError(message: error.description)
            }
            return (reader, "history read-only: \(Self.describeHolder(error.holderPID)) holds the store (and runs the hooks)")
        }
    }

    /// The store for a one-shot command: while a `watch` or `serve` holds
    /// it, read-only (the reports get the history it recorded, and this
    /// cycle is not recorded), quietly, as cron wants; when even that
    /// fails, the cycle is simply not recorded (`note` says so, or nothing).
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
            if error.isInUse, let reader = openReadOnly(config, override: state) { return reader }
            guard error.isInUse || (error.isUnavailable && !chosenByUser) else { throw UserFacingError(message: error.description) }
            note?("pinwatch: history not recorded: \(error.description)")
            return nil
        }
    }

    /// The store opened as a reader (another pinwatch may hold it); nil
    /// when it cannot be read (nobody has created it yet).
    static func openReadOnly(_ config: Config, override state: String?) -> HistoryStore? {
        try? HistoryStore.open(
            config.state, override: state, historyDays: config.historyDays, mode: .reader, catalogue: config.catalogue)
    }

    /// `serve` when the lock's PID is a running pinwatch-serve (as its
    /// /proc comm says), else the PID the lock names.
    static func describeHolder(_ pid: Int32?) -> String {
        guard let pid else { return "another pinwatch" }
        let command = (try? RegularFile.readText("/proc/\(pid)/comm", limit: 64))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return command == "pinwatch-serve" ? "serve (PID \(pid))" : "pinwatch (PID \(pid))"
    }
}
