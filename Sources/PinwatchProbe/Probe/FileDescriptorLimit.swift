import Glibc

/// Raises the soft open-file limit to the hard one, because `concurrency`
/// probes need as many sockets and the default soft limit is often 1024.
enum FileDescriptorLimit {
    static func raiseToHardLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        // Failure leaves the old limit: probes beyond it fail one by one
        // with a clear socket error instead of the engine refusing to start.
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
