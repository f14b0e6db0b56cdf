import ArgumentParser
import Foundation

extension Pinwatch {
    /// `pinwatch serve …` runs `pinwatch-serve …`, installed beside it: the
    /// exporter's HTTP server (SwiftNIO) stays out of the dashboard binary,
    /// which builds and starts faster without it.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Poll on the interval and serve the results to Prometheus (see pinwatch serve --help).",
            // --help and every option go to pinwatch-serve.
            helpNames: []
        )

        @Argument(parsing: .allUnrecognized, help: "Options of pinwatch-serve: --config, --shard, --listen, --state.")
        var arguments: [String] = []

        func run() throws {
            // argv[0] is just "pinwatch" when found on PATH (an installed
            // package); the kernel's link names the file itself.
            let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            let executable = URL(fileURLWithPath: running).resolvingSymlinksInPath()
            let sibling = executable.deletingLastPathComponent().appendingPathComponent("pinwatch-serve").path
            guard FileManager.default.isExecutableFile(atPath: sibling) else {
                throw UserFacingError(
                    message: """
                        \(sibling) is missing: install pinwatch-serve beside pinwatch \
                        (swift build builds both; swift build --product pinwatch-serve builds it alone)
                        """)
            }
            // exec keeps the PID, so systemd and `kill -HUP` reach the server.
            let argv = ([sibling] + arguments).map { strdup($0) } + [nil]
            execv(sibling, argv)
            throw UserFacingError(message: "cannot run \(sibling): \(String(cString: strerror(errno)))", code: 1)
        }
    }
}
