import Foundation

/// The process's environment, read once. `ProcessInfo.environment` builds a
/// new dictionary from `environ` at every call (a tenth of a millisecond
/// with an ordinary login environment, four times in a `check`), and
/// pinwatch never changes its own environment.
public enum ProcessEnvironment {
    public static let current: [String: String] = ProcessInfo.processInfo.environment
}
