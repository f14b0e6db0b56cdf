import ArgumentParser
import Foundation
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
    static func standardError(_ text: String) {
        FileHandle.standardError.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static func standardOutput(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// DESIGN §8's document, written in 64 KiB pieces as it is produced.
    static func streamJSON(_ reports: [HostReport], generatedAt: Date) {
        var pending = ""
        JSONReport.write(reports, generatedAt: generatedAt) { piece in
            pending += piece
            if pending.utf8.count >= 65_536 {
                standardOutput(pending)
                pending = ""
            }
        }
        standardOutput(pending)
    }
}

extension ParsableCommand {
    /// Runs `body`, turning a `UserFacingError` into its message and exit code.
    func reportingFailures(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as UserFacingError {
            Output.standardError("pinwatch: \(failure.message)")
            throw ExitCode(failure.code)
        }
    }
}
