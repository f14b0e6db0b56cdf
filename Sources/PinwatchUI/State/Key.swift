/// A key press as the dashboard understands it, whatever terminal sent it.
package enum Key: Hashable, Sendable {
    case character(Character)
    case up, down, pageUp, pageDown, home, end
    case enter, escape, backspace
    case ctrlC
    /// Ctrl-U: clears the filter being typed, as in a shell.
    case ctrlU
    /// F1 … F12.
    case function(Int)
    /// The mouse: the wheel, and a click on a screen row (0 is the top).
    case wheelUp, wheelDown
    case click(row: Int)
    /// The terminal changed size; the controller re-queries it and redraws.
    case resize
}

/// What the state asks the controller to do; the state itself does no I/O.
package enum DashboardCommand: Hashable, Sendable {
    case quit
    case refresh
    case nextTheme
    /// Build the host's `pins:` stanza, send it with OSC 52 and hand the
    /// text back through `DashboardState.stanzaText`.
    case copyPins(hostIndex: Int)
    /// `a`: store an acknowledgement of the host's present state; `until`
    /// as typed (a date or a duration from now, `AcknowledgementUntil`).
    case acknowledge(hostIndex: Int, until: String, reason: String)
    /// `A` (or `a` on an acknowledged host): remove its acknowledgement.
    case removeAcknowledgement(hostIndex: Int)
}

/// Row order of the table: configuration order, or by one column of
/// `TableColumn.all` (each case but `configuration` names its column),
/// each in the order that puts what needs attention first (the worst
/// severity, soonest expiry, stalest result, latest change); ties keep
/// configuration order, hosts still waiting come last.
package enum SortOrder: CaseIterable, Hashable, Sendable {
    case configuration
    /// The status column: severity, worst first.
    case worstFirst
    case host, chain, tier, days, proxy, age, since, reason

    /// The order `<` and `>` step through: the table's columns left to
    /// right, configuration order (no column) before the first.
    static let columnOrder: [SortOrder] = [.configuration] + TableColumn.all.map(\.sortOrder)
}

/// Which screen is showing.
package enum DashboardView: Hashable, Sendable {
    case table
    case detail(hostIndex: Int)
    case help
    /// `c`: what each client release sees on the hosts it pins.
    case clients

    /// The view a footer message raised here belongs to: help is drawn
    /// over the table and shares its messages.
    var messageScope: DashboardView {
        self == .help ? .table : self
    }
}
