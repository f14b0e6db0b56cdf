import Foundation

/// Every program the end-to-end tests start goes through here: the built
/// binary, bash pipelines around it, tmux, promtool, and (through `spawn`)
/// the long-running ones of `BackgroundProcess`.
///
/// posix_spawn and waitpid, outside Foundation's `Process`:
/// `Process.waitUntilExit` on Linux waits for a SIGCHLD that can be lost
/// when a thread that does not block it receives it (seen with the tmux
/// client, which exits right after forking its server): the test then hangs
/// for good. waitpid on our own child cannot miss it.
enum SpawnedCommand {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Killed (by its own PID) when its time ran out.
        var timedOut = false

        /// Both streams, for checks that do not care which one a tool used.
        var output: String { stdout + stderr }
    }

    /// Runs `path` with `arguments` and no input; collects stdout and
    /// stderr while it runs (a full pipe cannot block it), and kills it past
    /// `timeout`. `environment` replaces the test process's own when given.
    static func run(
        _ path: String, _ arguments: [String], environment: [String: String]? = nil, currentDirectory: URL? = nil,
        timeout: TimeInterval = 60
    ) throws -> Outcome {
        var (executable, words) = (path, arguments)
        if let currentDirectory {
            // posix_spawn's chdir action is a GNU extension Swift's Glibc leaves out.
            (executable, words) = ("/bin/sh", ["-c", "cd -- \"$0\" && exec \"$@\"", currentDirectory.path, path] + arguments)
        }
        let output = try pipeEnds()
        let errors = try pipeEnds()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        for end in [output.read, output.write, errors.read, errors.write] { posix_spawn_file_actions_addclose(&actions, end) }
        let pid: pid_t
        do {
            pid = try spawn(executable, words, environment: environment, actions: &actions)
        } catch {
            [output.read, output.write, errors.read, errors.write].forEach { close($0) }
            throw error
        }
        close(output.write)
        close(errors.write)
        defer {
            close(output.read)
            close(errors.read)
        }
        let (collected, timedOut) = collect([output.read, errors.read], until: Date().addingTimeInterval(timeout))
        if timedOut { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return Outcome(
            status: exitStatus(status), stdout: String(decoding: collected[0], as: UTF8.self),
            stderr: String(decoding: collected[1], as: UTF8.self), timedOut: timedOut)
    }

    /// Starts `path`; its PID. `environment` replaces the test process's
    /// own when given.
    static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String]?, actions: inout posix_spawn_file_actions_t
    ) throws -> pid_t {
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            argv.forEach { free($0) }
            envp?.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned =
            if var envp {
                posix_spawn(&pid, path, &actions, nil, argv, &envp)
            } else {
                posix_spawn(&pid, path, &actions, nil, argv, environ)
            }
        guard spawned == 0 else { throw SpawnError(message: "\(path): \(String(cString: strerror(spawned)))") }
        return pid
    }

    /// waitpid's status as a shell reports it: the exit code, or 128 plus
    /// the signal (WIFEXITED and WEXITSTATUS are macros Swift cannot call).
    static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// The environment a pinwatch child runs with: the test process's, less
    /// the machine's proxy settings and colour preference, a UTF-8 locale,
    /// and a state folder of its own (`IsolatedStateHome`, to remove after).
    static func pinwatchEnvironment(_ overrides: [String: String]) -> (environment: [String: String], stateHome: String?) {
        var environment = ProcessInfo.processInfo.environment
        for key in ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "http_proxy", "HTTP_PROXY", "NO_COLOR", "XDG_STATE_HOME"] {
            environment.removeValue(forKey: key)
        }
        environment["LANG"] = "C.UTF-8"
        environment.merge(overrides) { _, new in new }
        let stateHome = IsolatedStateHome.apply(to: &environment)
        return (environment, stateHome)
    }

    private static func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw SpawnError(message: "pipe: \(String(cString: strerror(errno)))") }
        return (ends[0], ends[1])
    }

    /// Reads every descriptor to end of file, or until `deadline`.
    private static func collect(_ descriptors: [Int32], until deadline: Date) -> (data: [Data], timedOut: Bool) {
        var data = descriptors.map { _ in Data() }
        var open = Set(descriptors.indices)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !open.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return (data, true) }
            var entries = open.sorted().map { pollfd(fd: descriptors[$0], events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0, errno != EINTR { break }
            for entry in entries where entry.revents != 0 {
                guard let index = descriptors.firstIndex(of: entry.fd) else { continue }
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    data[index].append(contentsOf: buffer[..<count])
                } else if count == 0 || errno != EINTR {
                    open.remove(index)
                }
            }
        }
        return (data, false)
    }
}

struct SpawnError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
