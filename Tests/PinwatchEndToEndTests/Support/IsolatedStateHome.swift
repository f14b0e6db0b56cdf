import Foundation

/// A fresh `XDG_STATE_HOME` for each binary a test starts, so that no test
/// writes history under the real home, none inherits another's, and two
/// dashboards never meet on one state file. Tests that want continuity
/// pass `--state` or their own `XDG_STATE_HOME`.
enum IsolatedStateHome {
    static func make() -> String {
        let path = NSTemporaryDirectory() + "pinwatch-state-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `environment` with a fresh state home unless it names one; the
    /// folder to remove afterwards, when one was made.
    static func apply(to environment: inout [String: String]) -> String? {
        guard environment["XDG_STATE_HOME"] == nil else { return nil }
        let home = make()
        environment["XDG_STATE_HOME"] = home
        return home
    }

    static func remove(_ home: String?) {
        if let home { try? FileManager.default.removeItem(atPath: home) }
    }
}
