/// Why a step of following a log failed. The first five are the log's
/// misbehaviour: what it signed or served contradicts itself, or is no
/// answer an honest log gives (an entries batch past a bound far above any
/// real one); the rest are the road to it (network, status, time), which
/// a later cycle may not meet.
package enum CTLogError: Error, Equatable, CustomStringConvertible {
    /// A tree head whose signature is not the log's key's.
    case badSignature(treeSize: UInt64)
    /// A new tree that is not an extension of the last verified one.
    case inconsistent(String)
    /// Entries whose hashes do not build the signed root.
    case entriesNotInTree(from: UInt64, to: UInt64)
    /// An answer that does not parse as the protocol says.
    case malformed(String)
    /// An answer that passed the client's bound (libcurl stopped reading).
    case tooLarge(what: String, limit: Int)
    case timedOut(what: String)
    case httpStatus(Int, what: String)
    case transfer(String)

    package var isMisbehaviour: Bool {
        switch self {
        case .badSignature, .inconsistent, .entriesNotInTree, .malformed, .tooLarge: true
        case .timedOut, .httpStatus, .transfer: false
        }
    }

    /// The short reason a metric or a log line carries.
    package var reason: String {
        switch self {
        case .badSignature: "bad_signature"
        case .inconsistent: "inconsistent"
        case .entriesNotInTree: "entries_not_in_tree"
        case .malformed: "malformed"
        case .tooLarge: "too_large"
        case .timedOut: "timeout"
        case .httpStatus: "http_status"
        case .transfer: "transfer"
        }
    }

    package var description: String {
        switch self {
        case .badSignature(let size): "the tree head of size \(size) is not signed by the log's key"
        case .inconsistent(let why): "inconsistent history: \(why)"
        case .entriesNotInTree(let from, let to): "entries \(from)..<\(to) do not hash to the signed tree"
        case .malformed(let why): why
        case .tooLarge(let what, let limit): "\(what): the answer passed \(limit) bytes"
        case .timedOut(let what): "\(what): no answer in time"
        case .httpStatus(let status, let what): "\(what): HTTP status \(status)"
        case .transfer(let why): why
        }
    }
}
