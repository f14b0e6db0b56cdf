import Foundation

extension BoundedTransfer {
    /// The same transfer, on the caller's thread: for callers that already
    /// run on a thread of their own (a Certificate Transparency log's
    /// follower, the fleet view's queries in turn), where a completion
    /// would only be waited for. An abandoned transfer ends as `failed`.
    package func fetch(_ url: URL, form: String? = nil, timeout: TimeInterval) -> Ending {
        perform(url, form: form, timeout: timeout)
    }
}
