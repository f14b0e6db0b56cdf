import Foundation
import XCTest

/// A private tmux server running one command in a detached window, driven as
/// a person would: keys in, screen (with colours) out.
///
/// Each session has its own socket (`-L`), so the tests never touch a tmux
/// server they did not start, and `close()` ends only that server.
final class TmuxSession {
    let socket: String
    private let statusPath: String
    private(set) var closed = false
    private var stateHome: String?

    /// Starts `command` (a shell command line) in a window of `columns`×`rows`.
    init(command: String, columns: Int = 120, rows: Int = 40, environment: [String: String] = [:]) throws {
        socket = "pinwatch-test-\(getpid())-\(UUID().uuidString.prefix(8))"
        var environment = environment
        stateHome = IsolatedStateHome.apply(to: &environment)
        var exports = ["LANG=C.UTF-8", "TERM=xterm-256color"]
        exports += environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        // `remain-on-exit` keeps the pane after the program exits, so a test
        // can read what the terminal looked like. The exit status is the
        // shell's to write: tmux can mark a pane dead (its terminal closed)
        // without ever giving its status (`pane_dead_status` stayed empty
        // in about one run in six of a dashboard quitting at once).
        statusPath = NSTemporaryDirectory() + "\(socket).status"
        let script =
            "env \(exports.map(Self.quote).joined(separator: " ")) \(command); echo $? > \(Self.quote(statusPath))"
        try tmux(["-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)", "sh", "-c", script])
        try tmux(["set-option", "-g", "remain-on-exit", "on"])
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        _ = try? tmux(["kill-server"])
        try? FileManager.default.removeItem(atPath: statusPath)
        IsolatedStateHome.remove(stateHome)
    }

    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", "0"] + keys)
    }

    /// Types text literally (no key-name lookup).
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", "0", "-l", text])
    }

    func resize(columns: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", "0", "-x", "\(columns)", "-y", "\(rows)"])
    }

    /// The visible screen; with `escapes`, SGR sequences show the colours.
    func capture(escapes: Bool = false) throws -> String {
        try tmux(["capture-pane", "-p", "-t", "0"] + (escapes ? ["-e"] : []))
    }

    /// The pane's program has exited; its status (128 + the signal that
    /// ended it, as the shell says), else nil.
    func exitStatus() throws -> Int32? {
        guard let text = try? String(contentsOfFile: statusPath, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Polls the screen until `predicate` holds or `timeout` passes; returns the last screen.
    @discardableResult
    func waitForScreen(
        timeout: TimeInterval = 20, escapes: Bool = false, file: StaticString = #filePath, line: UInt = #line,
        _ predicate: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var screen = try capture(escapes: escapes)
        while !predicate(screen) {
            if Date() > deadline {
                XCTFail("screen did not reach the expected state within \(timeout) s:\n\(screen)", file: file, line: line)
                return screen
            }
            usleep(100_000)
            screen = try capture(escapes: escapes)
        }
        return screen
    }

    /// Waits until the program has exited; returns its status.
    func waitForExit(timeout: TimeInterval = 10) throws -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = try exitStatus() { return status }
            usleep(100_000)
        }
        return nil
    }

    /// A pane format variable (`mouse_any_flag`: whether the program asked
    /// for mouse events).
    func paneVariable(_ name: String) throws -> String {
        try tmux(["display-message", "-p", "-t", "0", "#{\(name)}"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func setGlobalOption(_ name: String, _ value: String) throws {
        try tmux(["set-option", "-g", name, value])
    }

    /// The newest paste buffer: where tmux puts what an application sent
    /// with OSC 52 when `set-clipboard` is on.
    func newestPasteBuffer() throws -> String {
        try tmux(["show-buffer"])
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        // Not Foundation's Process: see SpawnedCommand for the hang it avoids.
        let outcome = try SpawnedCommand.run("/usr/bin/tmux", ["-L", socket] + arguments)
        if outcome.status != 0 && arguments.first != "kill-server" {
            throw TmuxError(message: "tmux \(arguments.joined(separator: " ")): \(outcome.output)")
        }
        return outcome.output
    }

    static func quote(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

struct TmuxError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
