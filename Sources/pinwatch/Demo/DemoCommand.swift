import ArgumentParser
extension Pinwatch {
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run the dashboard on a built-in local demo.")
        func run() throws { throw UserFacingError(message: "not yet") }
    }
}
