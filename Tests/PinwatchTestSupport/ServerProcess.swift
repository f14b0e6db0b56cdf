import CLinux
import Foundation
import PinwatchProbe

/// A Debian server program a test runs as a peer (nginx, PostgreSQL,
/// OpenSMTPD): spawned with standard input from /dev/null, its output in
/// one file and no other descriptor of the test process, waited for with
/// a bounded poll, and ended by its own PID.
package final class ServerProcess {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let pid: pid_t
    private var exited = false

    /// `arguments[0]` is the program's path; `user` runs it as that
    /// account through setpriv (PostgreSQL refuses to run as root).
    package init(_ arguments: [String], output: String, user: String? = nil) throws {
        let command =
            user.map { ["/usr/bin/setpriv", "--reuid=\($0)", "--regid=\($0)", "--init-groups", "--"] + arguments } ?? arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var spawnedPID: pid_t = 0
        let status = posix_spawn(&spawnedPID, command[0], &actions, nil, argv, environ)
        guard status == 0 else {
            throw Failure(description: "cannot start \(command[0]): \(String(cString: strerror(status)))")
        }
        pid = spawnedPID
    }

    deinit {
        stop()
    }

    /// Whether the program has ended (it is reaped here).
    package var hasExited: Bool {
        if exited { return true }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || result < 0 { exited = true }
        return exited
    }

    /// Polls `condition` until `timeout` seconds have passed; true once
    /// it holds, false if the program ended or time ran out first without it.
    package func wait(upTo timeout: TimeInterval, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            // What it wrote just before it ended still counts.
            if hasExited { return condition() }
            usleep(10_000)
        }
        return condition()
    }

    /// `signal` (SIGTERM unless the program wants another), then SIGKILL
    /// if it has not ended within five seconds.
    package func stop(signal: Int32 = SIGTERM) {
        guard !hasExited else { return }
        kill(pid, signal)
        if !wait(upTo: 5, until: { hasExited }) {
            kill(pid, SIGKILL)
            _ = wait(upTo: 5, until: { hasExited })
        }
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    package static func isListening(port: Int) -> Bool {
        guard let address = SocketAddress.numeric("127.0.0.1", port: port),
            let (socket, start) = try? Socket.connecting(to: address)
        else { return false }
        defer { socket.close() }
        if start == .connected { return true }
        var descriptor = pollfd(fd: socket.descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&descriptor, 1, 200) == 1 else { return false }
        return socket.pendingError == 0 && socket.hasPeer
    }
}
