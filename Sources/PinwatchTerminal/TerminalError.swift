/// Why the dashboard could not take over the terminal.
public struct TerminalError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
