import CBuildInfo

/// The version every pinwatch executable reports: VERSION's, through
/// Package.swift, and in a packaged build the commit it was built from.
package enum PinwatchVersion {
    package static let current = String(cString: pinwatch_build_version())
    package static let commit = String(cString: pinwatch_build_commit())

    /// What `-V` and `--version` print after "pinwatch ".
    package static var withCommit: String {
        commit.isEmpty ? current : "\(current) (commit \(commit))"
    }
}
