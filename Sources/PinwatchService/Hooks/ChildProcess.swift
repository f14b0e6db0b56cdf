import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One run of a hook: posix_spawn with the event on stdin, stdout thrown
/// away, the first `stderrLimit` bytes of stderr kept, killed at its
/// deadline. waitpid on our own child, not Foundation's `Process`, whose
/// SIGCHLD-based wait can miss an exit on Linux.
struct ChildProcess {
    struct Outcome: Sendable {
        /// The exit status, or nil when it was killed or could not start.
        var status: Int32?
        var timedOut: Bool
        var stderr: String
        var spawnError: String?

        var succeeded: Bool { status == 0 && !timedOut && spawnError == nil }
    }

    static let stderrLimit = 4 * 1024

    static func run(_ arguments: [String], input: String, timeout: TimeInterval) -> Outcome {
        guard let program = arguments.first else {
            return Outcome(status: nil, timedOut: false, stderr: "", spawnError: "empty command")
        }
        var inputEnds: [Int32] = [-1, -1]
        var errorEnds: [Int32] = [-1, -1]
        guard pipe(&inputEnds) == 0 else { return failure("pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&errorEnds) == 0 else {
            inputEnds.forEach { close($0) }
            return failure("pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorEnds[1], 2)
        for end in inputEnds + errorEnds { posix_spawn_file_actions_addclose(&actions, end) }

        // A name without a slash is looked up on PATH, as execvp does.
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned =
            program.contains("/")
            ? posix_spawn(&pid, program, &actions, nil, argv, environ)
            : posix_spawnp(&pid, program, &actions, nil, argv, environ)
        close(inputEnds[0])
        close(errorEnds[1])
        guard spawned == 0 else {
            close(inputEnds[1])
            close(errorEnds[0])
            return failure("\(program): \(String(cString: strerror(spawned)))")
        }

        // The event is small; a hook that never reads it must not block us.
        _ = fcntl(inputEnds[1], F_SETFL, fcntl(inputEnds[1], F_GETFL) | O_NONBLOCK)
        let bytes = Array(input.utf8)
        _ = bytes.withUnsafeBytes { write(inputEnds[1], $0.baseAddress, $0.count) }
        close(inputEnds[1])

        _ = fcntl(errorEnds[0], F_SETFL, fcntl(errorEnds[0], F_GETFL) | O_NONBLOCK)
        var captured: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        var exited = false
        var timedOut = false
        while !exited {
            let count = read(errorEnds[0], &buffer, buffer.count)
            if count > 0, captured.count < stderrLimit {
                captured += buffer.prefix(min(count, stderrLimit - captured.count))
            }
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                exited = true
                status = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : -1
            } else if Date() > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &raw, 0)
                exited = true
                timedOut = true
            } else if count <= 0 {
                usleep(10_000)
            }
        }
        close(errorEnds[0])
        let text = TerminalTextLine.clean(String(decoding: captured, as: UTF8.self))
        return Outcome(status: timedOut ? nil : status, timedOut: timedOut, stderr: text, spawnError: nil)
    }

    private static func failure(_ message: String) -> Outcome {
        Outcome(status: nil, timedOut: false, stderr: "", spawnError: message)
    }
}
