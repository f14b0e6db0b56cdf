/// Why the state file cannot be used; every message names the path and
/// the way out.
package struct HistoryError: Error, CustomStringConvertible {
    package var description: String
    /// Another pinwatch writes to this file now: one-shot commands go on
    /// without recording instead of failing.
    package var isInUse = false
    /// The place cannot hold a state file (no folder can be made, nothing
    /// can be written); unlike a damaged or foreign file, nothing is at risk.
    package var isUnavailable = false
    /// With `isInUse`: the PID the lock file names, when it names one.
    package var holderPID: Int32?

    init(_ path: String, _ problem: String, inUse: Bool = false, unavailable: Bool = false, holderPID: Int32? = nil) {
        description = "\(path): \(problem); set `state: off` (or --state off) to run without history"
        isInUse = inUse
        isUnavailable = unavailable
        self.holderPID = holderPID
    }
}
