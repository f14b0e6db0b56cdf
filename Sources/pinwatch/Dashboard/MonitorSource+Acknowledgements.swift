import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchMonitor
import PinwatchSystem
import PinwatchUI

/// `a` and `A`: acknowledgements stored in the history store, with who,
/// when and why, and applied at once to the row on screen.
extension MonitorSource {
    static func storesAcknowledgements(_ history: HostHistoryRecorder?) -> Bool {
        guard let path = (history as? HistoryStore)?.path else { return false }
        return path != HistoryStore.inMemoryPath
    }

    /// Who acknowledged: the login name, as `last` and `who` show it.
    private var userName: String? {
        LoginName.resolve(environment: ProcessEnvironment.current).map { TerminalText.sanitize(String($0.prefix(64))) }
    }

    /// Where acknowledgements go; nil with `state: off`, said in the footer.
    private func acknowledgementStore() -> String? {
        guard let path = (history as? HistoryStore)?.path, path != HistoryStore.inMemoryPath else {
            dashboard?.announce(
                "cannot acknowledge: history is off (state: off or --state off), and acknowledgements are kept in the history store")
            return nil
        }
        return path
    }

    func acknowledge(host index: Int, until text: String, reason: String) {
        guard let dashboard, let path = acknowledgementStore() else { return }
        let now = Date()
        guard dashboard.state.reports.indices.contains(index), let report = dashboard.state.reports[index] else { return }
        guard let until = AcknowledgementUntil.parse(text, now: now), until > now else {
            dashboard.announce("not acknowledged: \(TerminalText.sanitize(text)) is not a future date or a duration")
            return
        }
        let acknowledgement = Acknowledgement(
            hostIdentity: report.config.identityKey, until: until,
            reason: TerminalText.sanitize(String(reason.prefix(AcknowledgementTable.reasonCharacters))), by: userName, at: now,
            source: .dashboard, state: AcknowledgedState(of: report))
        do {
            try AcknowledgementTable.store(acknowledgement, path: path)
        } catch {
            dashboard.announce("not acknowledged: \(error.description)")
            return
        }
        reapplyAcknowledgements(to: index)
        dashboard.state.announceAcknowledgement(
            "acknowledged \(report.config.displayName) until \(DateText.readableUTC(until)); A removes it", ofHost: index)
        dashboard.schedulePaint()
    }

    func removeAcknowledgement(ofHost index: Int) {
        guard let dashboard, dashboard.state.reports.indices.contains(index), let report = dashboard.state.reports[index] else { return }
        if report.acknowledgement?.source == .config {
            dashboard.announce("\(report.config.displayName) is silenced by silence: in the configuration; remove it there")
            return
        }
        guard let path = acknowledgementStore() else { return }
        do {
            try AcknowledgementTable.remove(hostIdentity: report.config.identityKey, path: path)
        } catch {
            dashboard.announce("acknowledgement not removed: \(error.description)")
            return
        }
        reapplyAcknowledgements(to: index)
        dashboard.announce("\(report.config.displayName) is no longer acknowledged")
    }

    /// The row dims (or lights up) now, not at the next cycle.
    private func reapplyAcknowledgements(to index: Int) {
        acknowledgements.reload()
        guard let dashboard, let report = dashboard.state.reports[index] else { return }
        dashboard.state.record(acknowledgements.apply([report])[0], forHost: index, at: Date())
    }

    /// A host that left the state it was acknowledged in is news again: its
    /// row leaves the store so that `serve` and `check` see it too.
    func forgetSpentAcknowledgements() {
        let spent = acknowledgements.takeNewlySpent()
        guard !spent.isEmpty, let path = (history as? HistoryStore)?.path else { return }
        for acknowledgement in spent {
            try? AcknowledgementTable.remove(hostIdentity: acknowledgement.hostIdentity, path: path)
        }
    }
}
