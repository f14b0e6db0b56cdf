import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchTransfer

/// The CRLs the hosts' chains are looked up in: each fetched once per URL
/// and issuer key, and kept until its nextUpdate, so every host under one
/// CA shares one download a cycle at most; fetches run beside the probes,
/// a few at a time and fewer to any one server, each bounded in size and
/// time, so a server that stalls costs its own hosts their CRLs and no one
/// else's.
///
/// `@unchecked Sendable`: its table is guarded by its lock.
package final class CRLCache: @unchecked Sendable {
    package struct Key: Hashable, Sendable {
        var url: String
        var issuerKeySHA256: [UInt8]
    }

    package enum Answer: Sendable {
        case verified(CertificateRevocationList)
        case failed(String)
    }

    /// The bounds and pauses a cache keeps; the defaults are the product's.
    package struct Limits: Sendable {
        /// A CRL body larger than this is refused (read no further).
        package var maximumBody = 10 * 1_024 * 1_024
        /// Fetches in flight at once; more wait for a slot.
        package var concurrentFetches = 4
        /// Fetches in flight at once to one server (host and port): a
        /// server that stalls holds no more slots than this, so the CRLs
        /// of other CAs are still fetched beside it.
        package var fetchesPerServer = 2
        /// A failed fetch is not tried again sooner.
        package var retryAfterFailure: TimeInterval = 300
        /// A CRL past its nextUpdate (or naming none) is fetched again at most this often.
        package var refetchPastNextUpdate: TimeInterval = 3_600
        /// Entries kept; the oldest go first.
        package var maximumEntries = 4_096

        package init() {}
    }

    /// Every poller of the process shares it, across reloads.
    package static let shared = CRLCache()

    private struct Entry {
        var answer: Answer?
        /// When the answer was had (or the failure seen).
        var at: Date
        var waiters: [@Sendable (Answer) -> Void] = []
        var fetching = false
    }

    private struct Fetch {
        var key: Key
        var issuerKey: [UInt8]
        var timeout: TimeInterval
        var proxy: BoundedTransfer.Proxy
        /// What `fetchesPerServer` counts by.
        var server: String
    }

    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var queued: [Fetch] = []
    private var running = 0
    private var runningPerServer: [String: Int] = [:]
    private let limits: Limits
    private let clock: @Sendable () -> Date

    package init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Date = { Date() }) {
        self.limits = limits
        self.clock = clock
    }

    package var now: Date { clock() }

    /// Calls `completion` once: at once with an answer still good, else
    /// when a fetch (this caller's or one already running) ends.
    package func crl(
        url: String, issuerKey: [UInt8], issuerKeySHA256: [UInt8], timeout: TimeInterval, proxy: BoundedTransfer.Proxy,
        completion: @escaping @Sendable (Answer) -> Void
    ) {
        let key = Key(url: url, issuerKeySHA256: issuerKeySHA256)
        let now = clock()
        lock.lock()
        var entry = entries[key] ?? Entry(answer: nil, at: now)
        if let answer = entry.answer, !entry.fetching, !isDue(answer, fetchedAt: entry.at, now: now) {
            lock.unlock()
            return completion(answer)
        }
        // A stale CRL still answers while its successor is fetched.
        if let answer = entry.answer, case .verified = answer, entry.fetching {
            lock.unlock()
            return completion(answer)
        }
        entry.waiters.append(completion)
        let start = !entry.fetching
        entry.fetching = true
        entries[key] = entry
        if start {
            queued.append(Fetch(key: key, issuerKey: issuerKey, timeout: timeout, proxy: proxy, server: Self.server(of: url)))
        }
        let ready = takeReadyLocked()
        lock.unlock()
        ready.forEach(run)
    }

    private func isDue(_ answer: Answer, fetchedAt: Date, now: Date) -> Bool {
        switch answer {
        case .failed: return now.timeIntervalSince(fetchedAt) >= limits.retryAfterFailure
        case .verified(let crl):
            if let next = crl.nextUpdate, now < next { return false }
            return now.timeIntervalSince(fetchedAt) >= limits.refetchPastNextUpdate
        }
    }

    /// The oldest queued fetches there are slots for, skipping those whose
    /// server already has its share in flight.
    private func takeReadyLocked() -> [Fetch] {
        var ready: [Fetch] = []
        var index = queued.startIndex
        while running < limits.concurrentFetches, index < queued.endIndex {
            let server = queued[index].server
            guard runningPerServer[server, default: 0] < limits.fetchesPerServer else {
                index += 1
                continue
            }
            ready.append(queued.remove(at: index))
            running += 1
            runningPerServer[server, default: 0] += 1
        }
        return ready
    }

    /// `host:port` of a CRL URL, lowercased; the URL itself when it names none.
    static func server(of url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host?.lowercased() else { return url }
        return "\(host):\(components.port ?? 80)"
    }

    private func run(_ fetch: Fetch) {
        guard let url = URL(string: fetch.key.url) else {
            return finish(fetch, with: .failed("the URL cannot be read"))
        }
        let transfer = BoundedTransfer(
            limit: limits.maximumBody, accept: "application/pkix-crl", protocols: "http", proxy: fetch.proxy,
            threadName: "pinwatch-crl-fetch")
        let limit = limits.maximumBody
        transfer.start(url, timeout: fetch.timeout) { [self] ending in
            finish(fetch, with: Self.answer(ending, issuerKey: fetch.issuerKey, limit: limit, timeout: fetch.timeout))
        }
    }

    static func answer(_ ending: BoundedTransfer.Ending, issuerKey: [UInt8], limit: Int, timeout: TimeInterval) -> Answer {
        switch ending {
        case .answered(let body, let status):
            guard status == 200 else { return .failed("the server answered HTTP \(status)") }
            do {
                return .verified(try CertificateRevocationList(body: Array(body), issuerKey: issuerKey))
            } catch {
                return .failed(error.message)
            }
        case .failed(let detail): return .failed("the fetch failed: \(TerminalText.sanitize(detail))")
        case .tooLarge: return .failed("the CRL is larger than \(limit / 1_048_576) MiB (refused)")
        case .timedOut: return .failed("no CRL within \(String(format: "%g", timeout)) s")
        case .redirected: return .failed("the server redirected (never followed)")
        }
    }

    private func finish(_ fetch: Fetch, with answer: Answer) {
        let now = clock()
        lock.lock()
        var entry = entries[fetch.key] ?? Entry(answer: nil, at: now)
        let waiters = entry.waiters
        entry.waiters = []
        entry.fetching = false
        // A failed refetch keeps the CRL it meant to replace: past its
        // nextUpdate it says stale, which is what is known.
        if case .failed = answer, case .verified = entry.answer {
            entry.at = now
        } else {
            entry.answer = answer
            entry.at = now
        }
        entries[fetch.key] = entry
        running -= 1
        runningPerServer[fetch.server, default: 1] -= 1
        if runningPerServer[fetch.server] == 0 { runningPerServer[fetch.server] = nil }
        trimLocked()
        let ready = takeReadyLocked()
        let told = entry.answer ?? answer
        lock.unlock()
        waiters.forEach { $0(told) }
        ready.forEach(run)
    }

    private func trimLocked() {
        guard entries.count > limits.maximumEntries else { return }
        let idle = entries.filter { !$0.value.fetching }.sorted { $0.value.at < $1.value.at }
        for (key, _) in idle.prefix(entries.count - limits.maximumEntries) { entries[key] = nil }
    }
}
