/// Why the dashboard could not take over the terminal.
package struct TerminalError: Error, CustomStringConvertible, Sendable {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
