import Foundation
import Glibc
import PinwatchCore

/// A small, bounded pool of threads running the blocking `getaddrinfo`, so
/// that name resolution never stalls an event loop.
///
/// `getaddrinfo` cannot be cancelled: a probe whose deadline passes simply
/// stops waiting, and the late answer is dropped by its event loop. A job
/// still queued when its deadline passes is skipped, so a zone whose DNS
/// hangs costs its own hosts' deadlines, not the lookups of everyone queued
/// behind it.
final class NameResolver: @unchecked Sendable {
    enum Answer {
        case addresses([SocketAddress])
        case failed(String)
        /// The lookup itself could not run here (no descriptor or memory
        /// for it): nothing is known about the name.
        case unavailable(LocalResourceShortage, String)
    }

    private struct Job {
        var host: String
        var port: Int
        /// `DispatchTime` uptime nanoseconds after which nobody waits for the answer.
        var deadline: UInt64
        var completion: (Answer) -> Void
    }

    private let threadCount: Int
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var stopped = false
    private var threadsStarted = false

    /// The threads start with the first lookup: a fleet of numeric
    /// addresses (a `check` of one, say) never needs them.
    init(threads: Int) {
        threadCount = max(1, threads)
    }

    func resolve(host: String, port: Int, deadline: UInt64, completion: @escaping (Answer) -> Void) {
        condition.lock()
        if !threadsStarted {
            threadsStarted = true
            for number in 0..<threadCount {
                let thread = Thread { [self] in self.work() }
                thread.name = "pinwatch-resolver-\(number)"
                thread.start()
            }
        }
        jobs.append(Job(host: host, port: port, deadline: deadline, completion: completion))
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
            if DispatchTime.now().uptimeNanoseconds >= job.deadline {
                job.completion(.failed("cannot resolve \(job.host): the deadline passed before the lookup started"))
            } else {
                job.completion(Self.lookUp(host: job.host, port: job.port))
            }
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
            let code = errno
            if status == EAI_MEMORY {
                return .unavailable(.memory, "pinwatch cannot resolve \(host): \(String(cString: gai_strerror(status)))")
            }
            if status == EAI_SYSTEM, let shortage = LocalResourceShortage(errno: code) {
                return .unavailable(shortage, "pinwatch cannot resolve \(host): \(String(cString: strerror(code)))")
            }
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
