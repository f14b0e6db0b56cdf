import CLinux
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One run of a hook: posix_spawn with the event on stdin, stdout thrown
/// away, the first `stderrLimit` bytes of stderr kept, killed at its
/// deadline with everything it started (it leads its own process group). waitpid on our own child, not Foundation's `Process`, whose
/// SIGCHLD-based wait can miss an exit on Linux.
struct ChildProcess {
    struct Outcome: Sendable {
        /// The exit status, or nil when it was killed or could not start.
        var status: Int32?
        var timedOut: Bool
        var stderr: String
        var spawnError: String?
        /// The hook's process group (its pid), once it started.
        var processGroup: pid_t?

        var succeeded: Bool { status == 0 && !timedOut && spawnError == nil }
    }

    static let stderrLimit = 4 * 1024

    /// `started` is told the hook's process group as soon as it exists, so
    /// a caller stopping can kill it.
    /// `environment` is the child's whole environment (`NAME=value`).
    static func run(
        _ arguments: [String], environment: [String], input: String, timeout: TimeInterval, started: (pid_t) -> Void = { _ in }
    ) -> Outcome {
        guard let program = arguments.first else {
            return Outcome(status: nil, timedOut: false, stderr: "", spawnError: "empty command")
        }
        var inputEnds: [Int32] = [-1, -1]
        var errorEnds: [Int32] = [-1, -1]
        // Close-on-exec from birth: another hook spawned meanwhile must not
        // inherit these ends (a write end held elsewhere keeps a hook's
        // stdin from ever ending).
        guard pipe2(&inputEnds, O_CLOEXEC) == 0 else { return failure("pipe: \(String(cString: strerror(errno)))") }
        guard pipe2(&errorEnds, O_CLOEXEC) == 0 else {
            inputEnds.forEach { close($0) }
            return failure("pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputEnds[0], 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errorEnds[1], 2)
        // Every other descriptor, ours or a library's (the listening socket,
        // epoll, other hooks' pipes), whether or not it is close-on-exec.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = ChildAttributes()
        defer { attributes.destroy() }

        // A name without a slash is looked up on PATH, as execvp does.
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned =
            program.contains("/")
            ? posix_spawn(&pid, program, &actions, &attributes.value, argv, envp)
            : posix_spawnp(&pid, program, &actions, &attributes.value, argv, envp)
        close(inputEnds[0])
        close(errorEnds[1])
        guard spawned == 0 else {
            close(inputEnds[1])
            close(errorEnds[0])
            return failure("\(program): \(String(cString: strerror(spawned)))")
        }
        started(pid)

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
                // The whole group, so nothing the hook started lives on;
                // before waitpid, while the group's id cannot be reused.
                kill(-pid, SIGKILL)
                _ = waitpid(pid, &raw, 0)
                exited = true
                timedOut = true
            } else if count <= 0 {
                usleep(10_000)
            }
        }
        close(errorEnds[0])
        let text = TerminalTextLine.clean(String(decoding: captured, as: UTF8.self))
        return Outcome(status: timedOut ? nil : status, timedOut: timedOut, stderr: text, spawnError: nil, processGroup: pid)
    }

    private static func failure(_ message: String) -> Outcome {
        Outcome(status: nil, timedOut: false, stderr: "", spawnError: message)
    }
}

/// What a hook starts with instead of the exporter's thread state: Dispatch
/// workers block SIGTERM, SIGHUP, SIGINT, SIGCHLD and SIGALRM, and the
/// process ignores SIGINT, SIGPIPE and the signals it handles through
/// Dispatch sources; all of that is inherited through exec. A hook gets an
/// empty mask, default dispositions and a process group of its own.
private struct ChildAttributes {
    var value = posix_spawnattr_t()

    init() {
        posix_spawnattr_init(&value)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&value, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&value, &all)
        posix_spawnattr_setpgroup(&value, 0)
        posix_spawnattr_setflags(&value, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
    }

    mutating func destroy() {
        posix_spawnattr_destroy(&value)
    }
}
