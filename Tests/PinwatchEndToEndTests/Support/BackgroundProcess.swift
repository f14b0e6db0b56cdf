import Foundation

/// A long-running program a test starts (pinwatch serve, prometheus) with
/// stdout and stderr in files, ended by its own PID.
final class BackgroundProcess {
    let pid: pid_t
    let stderrURL: URL
    private var stateHome: String?

    init(_ path: String, _ arguments: [String], directory: URL, name: String, environment: [String: String] = [:]) throws {
        stderrURL = directory.appendingPathComponent("\(name).stderr")
        let stdoutPath = directory.appendingPathComponent("\(name).stdout").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let (environment, stateHome) = SpawnedCommand.pinwatchEnvironment(environment)
        self.stateHome = stateHome
        pid = try SpawnedCommand.spawn(path, arguments, environment: environment, actions: &actions)
    }

    deinit {
        stop()
        IsolatedStateHome.remove(stateHome)
    }

    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Waits up to `timeout` for the process to end; its status, or nil.
    @discardableResult
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while Date() < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return SpawnedCommand.exitStatus(status) }
            if result < 0 { return nil }
            usleep(20_000)
        }
        return nil
    }

    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if waitForExit(timeout: 3) == nil {
            kill(pid, SIGKILL)
            waitForExit(timeout: 3)
        }
    }
}
