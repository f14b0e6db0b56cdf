import ArgumentParser
import Foundation
import Glibc
import PinwatchCore

/// An error the user can act on: printed as `pinwatch: message` on stderr,
/// then the process exits with `code` (2 for usage, configuration and
/// unreadable input, DESIGN §7).
struct UserFacingError: Error, CustomStringConvertible {
    var message: String
    var code: Int32 = 2

    var description: String { message }
}

enum Output {
    /// How a one-shot command ends when its reader went away (`| head -1`):
    /// the status a shell shows for a process ended by SIGPIPE, and nothing
    /// on stderr, as `yes | head -1` behaves.
    static let closedPipeStatus: Int32 = 128 + SIGPIPE

    static func standardError(_ text: String) {
        // Nobody is left to tell if stderr itself is closed.
        _ = write(text.hasSuffix("\n") ? text : text + "\n", to: STDERR_FILENO)
    }

    /// Writes to stdout; a closed pipe ends the process quietly. SIGPIPE is
    /// ignored process-wide (a probe's socket must never raise it), so the
    /// write reports EPIPE instead, and FileHandle would trap on that.
    static func standardOutput(_ text: String) {
        if !write(text, to: STDOUT_FILENO) {
            _exit(closedPipeStatus)
        }
    }

    /// A line on stderr that the next one overwrites, or nil to erase it:
    /// long work's progress on a terminal, gone before the result.
    static func progress(_ line: String?) {
        _ = write("\r\u{1B}[K" + (line ?? ""), to: STDERR_FILENO)
    }

    /// False when the reader has gone (EPIPE) or the descriptor is unusable.
    private static func write(_ text: String, to descriptor: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    /// DESIGN §8's document, written in 64 KiB pieces as it is produced.
    static func streamJSON(_ reports: [HostReport], generatedAt: Date, vantage: String? = nil) {
        JSONReport.write(reports, generatedAt: generatedAt, vantage: vantage) { standardOutput($0) }
    }
}

extension ParsableCommand {
    /// Runs `body`, turning a `UserFacingError` into its message and exit code.
    func reportingFailures(_ body: () throws -> Void) throws {
        try Self.reportingFailures(body)
    }

    /// The same, for the command lines read without ArgumentParser.
    static func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as UserFacingError {
            Output.standardError("pinwatch: \(failure.message)")
            throw ExitCode(failure.code)
        }
    }
}
