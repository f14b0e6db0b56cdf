import CBuildInfo

/// The version every pinwatch executable reports: VERSION's, through
/// Package.swift, and in a packaged build the commit it was built from.
public enum PinwatchVersion {
    public static let current = String(cString: pinwatch_build_version())
    public static let commit = String(cString: pinwatch_build_commit())

    /// What `-V` and `--version` print after "pinwatch ".
    public static var withCommit: String {
        commit.isEmpty ? current : "\(current) (commit \(commit))"
    }
}
