import Foundation
import XCTest

/// One character of a `capture-pane -e` line with the foreground SGR code
/// in force where it was drawn (`32` green, `34` blue, `31` red, `38;5;n`).
struct ColouredCharacter {
    var character: Character
    var foreground: String?
}

/// Reads what `capture-pane -e` prints: text interleaved with SGR sequences.
enum SGRLine {
    /// The characters of `line` with their foreground colours. Only SGR
    /// (`ESC [ … m`) is expected; any other escape is skipped whole.
    static func characters(of line: String) -> [ColouredCharacter] {
        var result: [ColouredCharacter] = []
        var foreground: String?
        var scalars = Array(line.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\u{1B}" else {
                result.append(ColouredCharacter(character: Character(scalar), foreground: foreground))
                continue
            }
            guard scalars.first == "[" else { continue }
            scalars = scalars.dropFirst()
            var parameters = ""
            while let next = scalars.popFirst(), !(0x40...0x7E).contains(next.value) {
                parameters.unicodeScalars.append(next)
            }
            foreground = apply(parameters, to: foreground)
        }
        return result
    }

    /// The foreground after one SGR sequence's parameters.
    private static func apply(_ parameters: String, to current: String?) -> String? {
        var foreground = current
        var codes = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
        while let code = codes.popFirst() {
            switch code {
            case 0, 39: foreground = nil
            case 30...37, 90...97: foreground = "\(code)"
            case 38:
                // 38;5;n (palette) or 38;2;r;g;b (direct colour).
                let form = codes.popFirst() ?? 0
                let count = form == 5 ? 1 : form == 2 ? 3 : 0
                let values = codes.prefix(count).map(String.init)
                codes = codes.dropFirst(count)
                foreground = (["38", "\(form)"] + values).joined(separator: ";")
            case 48:
                let form = codes.popFirst() ?? 0
                codes = codes.dropFirst(form == 5 ? 1 : form == 2 ? 3 : 0)
            default: break
            }
        }
        return foreground
    }
}

extension TmuxSession {
    /// A tmux format such as `#{alternate_on}`, evaluated for the pane.
    func paneFormat(_ format: String) throws -> String {
        let outcome = try SpawnedCommand.run("/usr/bin/tmux", ["-L", socket, "display-message", "-p", "-t", "0", format])
        return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The process ID of the built `pinwatch` running under this pane's
    /// shell: the one process a signal test may send a signal to.
    func pinwatchProcess(timeout: TimeInterval = 10) throws -> pid_t? {
        guard let panePID = pid_t(try paneFormat("#{pane_pid}")) else { return nil }
        let binary = PinwatchBinary.url.resolvingSymlinksInPath().path
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            // The pane's own process when the shell exec'd pinwatch.
            let found = ([panePID] + ProcessTree.descendants(of: panePID)).first { pid in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) == binary
            }
            if let found { return found }
            usleep(100_000)
        }
        return nil
    }
}

/// Parent links read from /proc, to find a process the test itself started.
enum ProcessTree {
    /// Every process below `root` (children, grandchildren, …).
    static func descendants(of root: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var children: [pid_t: [pid_t]] = [:]
        for entry in entries {
            guard let pid = pid_t(entry), let parent = parent(of: pid) else { continue }
            children[parent, default: []].append(pid)
        }
        var found: [pid_t] = []
        var queue = children[root] ?? []
        // Bounded by the number of processes: each is visited once.
        while let pid = queue.popLast(), found.count < entries.count {
            found.append(pid)
            queue += children[pid] ?? []
        }
        return found
    }

    /// The fourth field of /proc/PID/stat; the command name before it may
    /// contain spaces and parentheses, so the fields are read after the last `)`.
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? pid_t(fields[1]) : nil
    }
}
