import PinwatchCore

/// Key handling: the whole keyboard contract of the dashboard in one place.
extension DashboardState {
    /// Rows one notch of the wheel moves, as in most terminal programs.
    static let wheelStep = 3

    /// Applies one key and returns what the controller must do.
    package mutating func handle(_ key: Key) -> [DashboardCommand] {
        // Quit from anywhere: Ctrl-C, Q, F10 (htop's key). `q` quits from
        // the table and goes back from the detail view and help.
        if key == .ctrlC || key == .function(10) { return [.quit] }
        if key == .resize { return [] }
        if isEditingFilter { return handleFilterEditing(key) }
        if acknowledgementPrompt != nil { return handleAcknowledgementPrompt(key) }
        if key == .character("Q") { return [.quit] }
        if key == .function(1) {
            view = view == .help ? .table : .help
            return []
        }
        switch view {
        case .help:
            view = .table
            return []
        case .detail(let hostIndex):
            return handleDetail(key, hostIndex: hostIndex)
        case .clients:
            return handleClients(key)
        case .table:
            return handleTable(key)
        }
    }

    private mutating func handleTable(_ key: Key) -> [DashboardCommand] {
        switch key {
        case .character("q"): return [.quit]
        case .character("r"): return [.refresh]
        case .character("t"): return [.nextTheme]
        case .up, .character("k"): moveSelection(by: -1)
        case .down, .character("j"): moveSelection(by: 1)
        case .pageUp: moveSelection(by: -tablePageSize)
        case .pageDown: moveSelection(by: tablePageSize)
        case .home, .character("g"): selectRow(0)
        case .end, .character("G"): selectRow(visibleHostIndices.count - 1)
        case .wheelUp: moveSelection(by: -Self.wheelStep)
        case .wheelDown: moveSelection(by: Self.wheelStep)
        case .click(let row):
            if let tableRow = tableRow(atScreenRow: row) { selectRow(tableRow) }
        case .character("s"):
            sortOrder = sortOrder == .worstFirst ? .configuration : .worstFirst
            sortReversed = false
            keepSelectionVisible()
        case .character("<"): moveSortColumn(by: -1)
        case .character(">"): moveSortColumn(by: 1)
        case .character("I"):
            sortReversed.toggle()
            keepSelectionVisible()
        case .character("/"):
            startEditingFilter()
        case .character("?"):
            view = .help
        case .character("c"):
            view = .clients
            resetDetailScroll()
        case .character("a"): return acknowledgeKey(remove: false)
        case .character("A"): return acknowledgeKey(remove: true)
        case .enter:
            if let selectedHost, selectedRow != nil {
                stanzaText = nil
                view = .detail(hostIndex: selectedHost)
                resetDetailScroll()
            }
        case .escape:
            if !filter.isEmpty {
                filter = ""
                keepSelectionVisible()
            }
        default:
            break
        }
        return []
    }

    private mutating func handleDetail(_ key: Key, hostIndex: Int) -> [DashboardCommand] {
        switch key {
        case .character("r"): return [.refresh]
        case .character("t"): return [.nextTheme]
        case .character("y"): return [.copyPins(hostIndex: hostIndex)]
        case .character("?"): view = .help
        case .escape, .backspace, .character("q"):
            view = .table
            stanzaText = nil
        default: scrollPage(key)
        }
        return []
    }

    /// The client view scrolls like the detail view; `c`, `q` or Esc go back.
    private mutating func handleClients(_ key: Key) -> [DashboardCommand] {
        switch key {
        case .character("r"): return [.refresh]
        case .character("t"): return [.nextTheme]
        case .character("?"): view = .help
        case .escape, .backspace, .character("q"), .character("c"): view = .table
        default: scrollPage(key)
        }
        return []
    }

    /// The keys that scroll the detail and client views.
    private mutating func scrollPage(_ key: Key) {
        switch key {
        case .up, .character("k"): scrollDetail(by: -1)
        case .down, .character("j"): scrollDetail(by: 1)
        case .wheelUp: scrollDetail(by: -Self.wheelStep)
        case .wheelDown: scrollDetail(by: Self.wheelStep)
        case .pageUp: scrollDetail(by: -detailPageSize)
        case .pageDown: scrollDetail(by: detailPageSize)
        case .home, .character("g"): setDetailScroll(0)
        case .end, .character("G"): setDetailScroll(maxDetailScroll)
        default: break
        }
    }

    /// `/` mode: typing edits the filter, Enter keeps it, Esc clears it.
    private mutating func handleFilterEditing(_ key: Key) -> [DashboardCommand] {
        switch key {
        case .enter:
            stopEditingFilter()
        case .escape:
            filter = ""
            stopEditingFilter()
        case .backspace:
            if !filter.isEmpty { filter.removeLast() }
            keepSelectionVisible()
        case .ctrlU:
            filter = ""
            keepSelectionVisible()
        case .character(let character):
            // Control characters never become part of the filter (nor of the screen).
            if !character.unicodeScalars.contains(where: TerminalText.isControl) {
                filter.append(character)
                keepSelectionVisible()
            }
        case .up: moveSelection(by: -1)
        case .down: moveSelection(by: 1)
        default:
            break
        }
        return []
    }
}
