import ArgumentParser
import Foundation
import PinwatchCore

/// `--interval` of `watch` and `demo`: a duration within the same bounds
/// as `interval:` in the configuration.
enum IntervalOption {
    static func seconds(_ text: String) throws -> TimeInterval {
        guard let seconds = ConfigDuration.parse(text) else {
            throw ValidationError("--interval \(EchoedInput.quoted(text)): expected a duration such as 30s, 5m or 1h")
        }
        if let problem = ConfigLimits.intervalProblem(seconds) {
            throw ValidationError("--interval: \(problem)")
        }
        return seconds
    }
}

extension HostPort {
    /// A command-line target, or a usage error that says what is wrong.
    static func validated(_ text: String) throws -> HostPort {
        do {
            return try HostPort(parsing: text)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
