import Dispatch
import Foundation
import PinwatchCore
import PinwatchProbe
import PinwatchTransfer

/// Looks a probe's chain up in its CRLs between the engine's result and
/// the finishing steps: what the verdict then reads from the result. A
/// chain whose CRLs are cached (or that has none) goes on at once; one
/// that waits for a fetch waits no longer than `timeout`, and a fetch
/// still running then carries on for the next cycle.
package struct RevocationLookup: Sendable {
    var cache: CRLCache
    /// One fetch's bound, and the longest a result waits for its lookups.
    var timeout: TimeInterval
    var proxy: ProxySetting
    var environment: [String: String]

    package init(cache: CRLCache, timeout: TimeInterval, proxy: ProxySetting, environment: [String: String]) {
        self.cache = cache
        self.timeout = timeout
        self.proxy = proxy
        self.environment = environment
    }

    package func complete(_ result: ProbeResult, checks: Bool, then deliver: @escaping @Sendable (ProbeResult) -> Void) {
        guard checks else {
            var unchecked = result
            unchecked.revocation = []
            unchecked.revocationSubjects = []
            return deliver(unchecked)
        }
        let subjects = result.revocationSubjects
        guard result.failure == nil, !subjects.isEmpty else { return deliver(result) }
        let gathering = FindingGathering(result: result, count: subjects.count, deliver: deliver)
        for (slot, subject) in subjects.enumerated() {
            look(up: subject, urls: subject.crlURLs[...], firstProblem: nil) { gathering.add($0, slot: slot) }
        }
        // Whatever has not answered by then is unavailable this cycle.
        if !gathering.isDone {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout + 0.25) {
                gathering.expire(subjects: subjects, after: timeout)
            }
        }
    }

    /// The URIs in order until one gives a verified CRL.
    private func look(
        up subject: RevocationSubject, urls: ArraySlice<String>, firstProblem: RevocationFinding?,
        then done: @escaping @Sendable (RevocationFinding) -> Void
    ) {
        guard let url = urls.first else {
            return done(
                firstProblem ?? RevocationFinding(level: subject.level, source: .crl(url: ""), outcome: .unavailable("no CRL")))
        }
        let route: BoundedTransfer.Proxy
        switch Self.route(for: url, setting: proxy, environment: environment) {
        case .success(let chosen): route = chosen
        case .failure(let problem):
            return done(RevocationFinding(level: subject.level, source: .crl(url: url), outcome: .unavailable(problem.message)))
        }
        let cache = self.cache
        cache.crl(
            url: url, issuerKey: subject.issuerKey, issuerKeySHA256: subject.issuerKeySHA256, timeout: timeout, proxy: route
        ) { answer in
            let finding = Self.finding(for: subject, url: url, answer: answer, now: cache.now)
            if case .unavailable = finding.outcome, urls.count > 1 {
                return look(up: subject, urls: urls.dropFirst(), firstProblem: firstProblem ?? finding, then: done)
            }
            done(finding)
        }
    }

    /// What a CRL says of one serial. A listed serial is revoked even in a
    /// CRL past its nextUpdate: a revocation is never taken back (a hold
    /// taken back leaves the list).
    static func finding(for subject: RevocationSubject, url: String, answer: CRLCache.Answer, now: Date) -> RevocationFinding {
        let outcome: RevocationFinding.Outcome
        switch answer {
        case .failed(let problem):
            outcome = .unavailable(problem)
        case .verified(let crl):
            if let entry = crl.entry(serial: subject.serial) {
                outcome = .revoked(reason: entry.reason, date: entry.date)
            } else if let next = crl.nextUpdate, next <= now {
                outcome = .stale(nextUpdate: next)
            } else {
                outcome = .good
            }
        }
        return RevocationFinding(level: subject.level, source: .crl(url: url), outcome: outcome)
    }

    struct RouteProblem: Error { var message: String }

    /// The proxy the configuration's rules give the CRL's host, as libcurl takes it.
    static func route(for url: String, setting: ProxySetting, environment: [String: String])
        -> Result<BoundedTransfer.Proxy, RouteProblem>
    {
        guard let host = URLComponents(string: url)?.host, !host.isEmpty else {
            return .failure(RouteProblem(message: "the URL names no host"))
        }
        guard let route = ProxyResolver(environment: environment).route(forHost: host, setting: setting) else {
            return .success(.direct)
        }
        if let problem = route.problem { return .failure(RouteProblem(message: "the proxy cannot be used: \(problem)")) }
        var components = URLComponents()
        components.scheme = route.scheme.rawValue
        components.host = route.host
        components.port = route.port
        components.user = route.username
        components.password = route.password
        guard let text = components.string else { return .failure(RouteProblem(message: "the proxy URL cannot be written")) }
        return .success(.url(text))
    }
}

/// One result's findings as they come in, handed on once: when the last
/// is in or at the deadline, whichever is first.
private final class FindingGathering: @unchecked Sendable {
    private let lock = NSLock()
    private var result: ProbeResult
    private var slots: [RevocationFinding?]
    private var delivered = false
    private let deliver: @Sendable (ProbeResult) -> Void

    init(result: ProbeResult, count: Int, deliver: @escaping @Sendable (ProbeResult) -> Void) {
        self.result = result
        self.deliver = deliver
        slots = Array(repeating: nil, count: count)
    }

    var isDone: Bool {
        lock.lock()
        defer { lock.unlock() }
        return delivered
    }

    func add(_ finding: RevocationFinding, slot: Int) {
        lock.lock()
        guard !delivered else { return lock.unlock() }
        slots[slot] = finding
        guard slots.allSatisfy({ $0 != nil }) else { return lock.unlock() }
        deliverLocked()
    }

    func expire(subjects: [RevocationSubject], after timeout: TimeInterval) {
        lock.lock()
        guard !delivered else { return lock.unlock() }
        for (slot, subject) in subjects.enumerated() where slots[slot] == nil {
            slots[slot] = RevocationFinding(
                level: subject.level, source: .crl(url: subject.crlURLs.first ?? ""),
                outcome: .unavailable("no CRL within \(String(format: "%g", timeout)) s"))
        }
        deliverLocked()
    }

    /// Unlocks before handing on: the next step takes locks of its own.
    private func deliverLocked() {
        delivered = true
        var finished = result
        finished.revocation += slots.compactMap { $0 }
        lock.unlock()
        deliver(finished)
    }
}
