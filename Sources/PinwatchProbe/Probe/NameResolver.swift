import Foundation
import Glibc

/// A small, bounded pool of threads running the blocking `getaddrinfo`, so
/// that name resolution never stalls an event loop.
///
/// `getaddrinfo` cannot be cancelled: a probe whose deadline passes simply
/// stops waiting, and the late answer is dropped by its event loop.
final class NameResolver: @unchecked Sendable {
    enum Answer {
        case addresses([SocketAddress])
        case failed(String)
    }

    private struct Job {
        var host: String
        var port: Int
        var completion: (Answer) -> Void
    }

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var stopped = false

    init(threads: Int) {
        for number in 0..<max(1, threads) {
            let thread = Thread { [self] in self.work() }
            thread.name = "pinwatch-resolver-\(number)"
            thread.start()
        }
    }

    func resolve(host: String, port: Int, completion: @escaping (Answer) -> Void) {
        condition.lock()
        jobs.append(Job(host: host, port: port, completion: completion))
        condition.signal()
        condition.unlock()
    }

    func stop() {
        condition.lock()
        stopped = true
        jobs.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.completion(Self.lookUp(host: job.host, port: job.port))
        }
    }

    /// IPv4 and IPv6 answers in the resolver's preferred order.
    static func lookUp(host: String, port: Int) -> Answer {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            return .failed("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = SocketAddress(entry) { addresses.append(address) }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failed("cannot resolve \(host): no IPv4 or IPv6 address") }
        return .addresses(addresses)
    }
}
