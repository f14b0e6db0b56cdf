import Foundation
import PinwatchCore

/// The acknowledgements a running command applies to its reports: Core's
/// book behind a lock, with the store's rows read again at each cycle's
/// start (so `serve` and `check` honour what a dashboard acknowledged), and
/// kept across reloads (one ledger, however many pollers).
///
/// `@unchecked Sendable`: the book is guarded by `lock`.
package final class AcknowledgementLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var book = AcknowledgementBook()
    private let readStored: (@Sendable () -> [Acknowledgement]?)?
    private let now: @Sendable () -> Date

    /// `readStored`: the store's acknowledgements, nil when they could not
    /// be read (the ones read before are kept); itself nil with history off.
    package init(readStored: (@Sendable () -> [Acknowledgement]?)? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.readStored = readStored
        self.now = now
    }

    /// Reads the store's acknowledgements again.
    package func reload() {
        guard let stored = readStored?() else { return }
        lock.lock()
        book.replaceStored(stored)
        lock.unlock()
    }

    package func apply(_ reports: [HostReport]) -> [HostReport] {
        let date = now()
        lock.lock()
        defer { lock.unlock() }
        return book.apply(reports, now: date)
    }

    /// Stored acknowledgements whose host changed state since the last call.
    package func takeNewlySpent() -> [Acknowledgement] {
        lock.lock()
        defer { lock.unlock() }
        return book.takeNewlySpent()
    }
}
