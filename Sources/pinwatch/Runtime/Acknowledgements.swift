import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor

extension AcknowledgementLedger {
    /// The ledger of a command that polls: the configuration's silences and
    /// the store's acknowledgements, read through a connection of their own
    /// (a `check` beside a running `watch` honours what it acknowledged).
    /// An unreadable table leaves the silences alone: a plugin must not
    /// turn UNKNOWN over it, and the writer reports the store's problems.
    static func reading(_ config: Config, override: String?) -> AcknowledgementLedger {
        reading(storeAt: AcknowledgementTable.path(config.state, override: override))
    }

    /// The store at `path` read each cycle; only the configuration's silences without one.
    static func reading(storeAt path: String?) -> AcknowledgementLedger {
        guard let path else { return AcknowledgementLedger() }
        return AcknowledgementLedger(readStored: { try? AcknowledgementTable.read(path: path) })
    }
}
