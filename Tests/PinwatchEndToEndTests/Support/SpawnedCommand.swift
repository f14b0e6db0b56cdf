import Foundation

/// Runs a short command with posix_spawn and waitpid, outside Foundation's
/// `Process`.
///
/// `Process.waitUntilExit` on Linux waits for a SIGCHLD that can be lost
/// when a thread that does not block it receives it (seen with the tmux
/// client, which exits right after forking its server): the test then hangs
/// for good. waitpid on our own child cannot miss it.
enum SpawnedCommand {
    struct Outcome {
        var status: Int32
        var output: String
    }

    /// Runs `path` with `arguments`, stdout and stderr together, and waits for it.
    static func run(_ path: String, _ arguments: [String]) throws -> Outcome {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw SpawnError(message: "pipe: \(String(cString: strerror(errno)))") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        defer { close(readEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(writeEnd)
        guard spawned == 0 else { throw SpawnError(message: "\(path): \(String(cString: strerror(spawned)))") }

        // Read to EOF: every holder of the write end has exited or closed it.
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(readEnd, &buffer, buffer.count)
            if count > 0 {
                output.append(contentsOf: buffer[..<count])
            } else if count < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED/WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exitStatus, output: String(decoding: output, as: UTF8.self))
    }
}

struct SpawnError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
