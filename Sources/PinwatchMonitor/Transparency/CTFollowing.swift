import Dispatch
import Foundation
import PinwatchCT
import PinwatchCore
import PinwatchProbe

/// Why `ct:` cannot be followed: the list's path and what is wrong with it.
package struct CTFollowingError: Error, CustomStringConvertible {
    package let description: String
}

/// `ct: {logs:, search:}` at work in a command: a `CTWatch` stepped on a queue
/// of its own, so a slow or stalling log never delays the host probes or
/// the screen, one bounded step at a time (`budget` entries a log), each
/// log's position and the certificates logged for each host loaded from
/// and saved to the history store, and what it found kept for the
/// reports' finishing step (`ReportFinishing`'s `transparency`). One per
/// process: it outlives the pollers a reload replaces.
///
/// `@unchecked Sendable`: the watch is touched only on `queue`; what the
/// steps found is guarded by `lock`.
package final class CTFollowing: @unchecked Sendable {
    /// The logged certificates kept per host, newest first.
    package static let recentPerHost = 20
    /// Entries a log may be read of in one step: a few requests, bounded
    /// in time by the client's timeouts.
    package static let defaultBudget: UInt64 = 4_096

    private let queue = DispatchQueue(label: "pinwatch.ct")
    private let lock = NSLock()
    private let logs: [CTLogDescription]
    private let search: CTSearchClient?
    private let saved: CTStateStore?
    private let budget: UInt64
    private let limits: RFC6962Client.Limits
    private let now: @Sendable () -> Date
    // On `queue` only.
    private var watch: CTWatch
    private var watchedConfig: Config
    // Under `lock`.
    private var logged: [String: [CTLoggedCertificate]] = [:]
    private var states: [String: CTLogState] = [:]
    private var logOrder: [String] = []
    private var misbehaving: [String] = []
    private var stepping = false
    /// `logged` changes bump it; the catalogue made from it is kept until then.
    private var loggedGeneration = 0
    private var observedCatalogue: (generation: Int, declared: Catalogue, result: Catalogue)?
    /// The catch-up `catchUpProgressIfMoved` last said.
    private var saidCatchUp: String?

    /// Reads the log list `config.ct.logList` names (a file, or the
    /// built-in copy) and makes the hosted search `config.ct.search` names,
    /// its token from `environment`; nil when `ct:` names neither.
    /// `saved`: where the logs were verified to before (a log without one
    /// starts at its size of the first step, without its history) and what
    /// they logged for each host then.
    package convenience init?(
        config: Config, saved: CTStateStore?, budget: UInt64 = defaultBudget,
        limits: RFC6962Client.Limits = RFC6962Client.Limits(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard let setting = config.ct, setting.logList != nil || setting.search != nil else { return nil }
        let logs = try setting.logList.map(Self.readList) ?? []
        var search: CTSearchClient?
        if let address = setting.search {
            guard let url = URL(string: address) else {
                throw CTFollowingError(description: "ct: search: \(EchoedInput.quoted(address)): not a URL")
            }
            search = CTSearchClient(baseURL: url, environment: environment)
        }
        self.init(
            logs: logs, config: config, saved: saved, budget: budget, limits: limits, search: search, now: now)
    }

    package init(
        logs: [CTLogDescription], config: Config, saved: CTStateStore?, budget: UInt64 = defaultBudget,
        limits: RFC6962Client.Limits = RFC6962Client.Limits(), search: CTSearchClient? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.logs = logs
        self.search = search
        self.saved = saved
        self.budget = budget
        self.limits = limits
        self.now = now
        var stored: [[UInt8]: VerifiedLogPosition] = [:]
        // A store that cannot be read costs the logs' history, not the run.
        for record in (try? saved?.loadPositions()) ?? [] {
            if let position = VerifiedLogPosition(record) { stored[record.logID] = position }
        }
        let date = now()
        logged = Self.judged((try? saved?.loadLogged(now: date)) ?? [:], config: config, now: date).mapValues(Self.recent)
        watchedConfig = config
        watch = Self.watch(logs: logs, config: config, positions: stored, limits: limits, search: search, searchCursors: [:])
    }

    /// A search names an issuer by its key only: the catalogue's
    /// intermediates (as served), cross-signs and roots give its chain.
    private static func watch(
        logs: [CTLogDescription], config: Config, positions: [[UInt8]: VerifiedLogPosition], limits: RFC6962Client.Limits,
        search: CTSearchClient?, searchCursors: [String: String]
    ) -> CTWatch {
        let issuers = config.catalogue.families.flatMap { family in
            family.intermediates.flatMap(\.servedChain) + family.crossSigns.map(\.facts) + family.roots.map(\.facts)
        }
        return CTWatch(
            logs: logs, config: config, store: store, positions: positions, limits: limits, search: search,
            searchCursors: searchCursors, knownIssuers: search == nil ? [] : issuers)
    }

    /// Releases without a `trust_store:` of their own are judged with a
    /// store that holds the root a log names: the logs accept only chains
    /// to roots they trust, and the host's own root is checked by its probe.
    static let store = TrustStore(name: "the host's store", anchors: [], assumesUnlistedRoots: true)

    /// The logs of the list `ct: logs:` names (a file, or `built-in`); what
    /// is wrong with it, naming the path.
    package static func readList(_ configured: String) throws -> [CTLogDescription] {
        do {
            return try CTLogList.load(configured: configured).logs
        } catch {
            throw CTFollowingError(description: "ct: logs: \(error)")
        }
    }

    /// The configuration a reload brought: the logs go on from where they
    /// are, for its hosts and releases.
    package func use(_ config: Config) {
        queue.async { [self] in
            guard config.hosts != watchedConfig.hosts || config.clients != watchedConfig.clients else { return }
            let clientsChanged = config.clients != watchedConfig.clients
            watchedConfig = config
            watch = Self.watch(
                logs: logs, config: config, positions: watch.positions, limits: limits, search: search,
                searchCursors: watch.searchCursors)
            guard clientsChanged else { return }
            let date = now()
            lock.lock()
            let kept = logged
            lock.unlock()
            let judged = Self.judged(kept, config: config, now: date)
            lock.lock()
            for (host, certificates) in judged where logged[host] == kept[host] { logged[host] = certificates }
            loggedGeneration += 1
            lock.unlock()
        }
    }

    /// One entry per certificate, newest first, at most `recentPerHost`: a
    /// CA submits each certificate to several logs, and its precertificate
    /// first, all with one serial under one issuer; the latest logging of
    /// it stands for them.
    package static func recent(_ certificates: [CTLoggedCertificate]) -> [CTLoggedCertificate] {
        var seen = Set<[UInt8]>()
        var out: [CTLoggedCertificate] = []
        for certificate in certificates.sorted(by: { ($0.loggedAt, $0.index) > ($1.loggedAt, $1.index) }) {
            guard seen.insert(Array(certificate.serial.utf8) + [0] + certificate.issuerSPKISHA256).inserted else { continue }
            out.append(certificate)
            if out.count == recentPerHost { break }
        }
        return out
    }

    /// Certificates read before, judged again for the releases `config`
    /// has now (new pins shipped, a release dropped): a verdict is the
    /// releases', not the day's it was read on. One whose chain was not
    /// kept, or no longer parses, keeps its verdict.
    static func judged(_ logged: [String: [CTLoggedCertificate]], config: Config, now: Date) -> [String: [CTLoggedCertificate]] {
        var out: [String: [CTLoggedCertificate]] = [:]
        for (host, certificates) in logged {
            out[host] = certificates.map { certificate in
                guard let facts = chainFacts(certificate) else { return certificate }
                var judged = certificate
                judged.verdict = CTChainJudge.judge(served: facts, name: host, clients: config.clients, store: store, now: now)
                return judged
            }
        }
        return out
    }

    /// One step of every log on the CT queue, unless one still runs (a
    /// slow log makes the next cycle's step wait, never the cycle).
    package func step() {
        lock.lock()
        let busy = stepping
        stepping = true
        lock.unlock()
        guard !busy else { return }
        queue.async { [self] in runStep() }
    }

    /// One step, waited for: `check`, `snapshot` and `pinwatch ct`.
    package func stepAndWait() {
        lock.lock()
        stepping = true
        lock.unlock()
        queue.sync { runStep() }
    }

    private func runStep() {
        let date = now()
        let cycle = watch.cycle(now: date, budget: budget)
        let records = watch.positions.map { $0.value.record(logID: $0.key) }
        if let saved {
            // The certificates before the positions: a step whose positions
            // were saved without them would never read them again.
            if !cycle.logged.isEmpty { try? saved.saveLogged(cycle.logged, now: date) }
            if !records.isEmpty { try? saved.savePositions(records) }
        }
        lock.lock()
        defer { lock.unlock() }
        for (host, found) in cycle.logged {
            logged[host] = Self.recent(found + (logged[host] ?? []))
        }
        if !cycle.logged.isEmpty { loggedGeneration += 1 }
        misbehaving = []
        for status in cycle.logs {
            let name = status.log.description
            if states[name] == nil { logOrder.append(name) }
            var state = states[name] ?? CTLogState(log: name, verifiedSize: nil)
            state.verifiedSize = status.verifiedSize
            if let error = status.error { state.errors[error.reason, default: 0] += 1 }
            state.misbehaving = status.isMisbehaving
            // A failed step keeps the catch-up it resumes (or drops) next time.
            if status.error == nil { state.catchingUp = status.catchingUp }
            if status.isMisbehaving { misbehaving.append(name) }
            states[name] = state
        }
        // A search's queries are listed as logs are, by the name asked.
        for status in cycle.search {
            let name = "search \(status.domain)"
            if states[name] == nil { logOrder.append(name) }
            var state = states[name] ?? CTLogState(log: name, verifiedSize: nil)
            if let error = status.error { state.errors[error.reason, default: 0] += 1 }
            states[name] = state
        }
        stepping = false
    }

    /// What the logs said about the host whose `sni` is `serverName`.
    package func facts(for serverName: String) -> CTHostFacts {
        lock.lock()
        defer { lock.unlock() }
        return CTHostFacts(logged: logged[serverName.lowercased()] ?? [], misbehavingLogs: misbehaving)
    }

    /// A kept certificate's logged chain as facts (the certificate first);
    /// nil when none was kept or one no longer parses.
    static func chainFacts(_ certificate: CTLoggedCertificate) -> [CertificateFacts]? {
        var facts: [CertificateFacts] = []
        for der in certificate.chainDER {
            guard let parsed = try? X509Certificate(der: der) else { return nil }
            facts.append(parsed.facts)
        }
        return facts.isEmpty ? nil : facts
    }

    /// The issuers of `logged` placed in `catalogue`'s families: what
    /// `catalogue` lists and what `catalogue(over:)` adds as pools.
    package static func observedIssuers(_ logged: [String: [CTLoggedCertificate]], in catalogue: Catalogue) -> [ObservedIssuer] {
        let loggings = logged.values.joined().compactMap { certificate in
            chainFacts(certificate).map { (loggedAt: certificate.loggedAt, chain: $0) }
        }
        return ObservedIssuer.observed(loggings, in: catalogue)
    }

    /// `declared` with the pools CT gives evidence of
    /// (`Catalogue.addingObserved`): the issuers of the certificates kept
    /// for the watched names, for the families whose pool it does not know.
    /// Made again only when the kept certificates change.
    package func catalogue(over declared: Catalogue) -> Catalogue {
        lock.lock()
        if let kept = observedCatalogue, kept.generation == loggedGeneration, kept.declared == declared {
            lock.unlock()
            return kept.result
        }
        let (generation, current) = (loggedGeneration, logged)
        lock.unlock()
        // Parsed outside the lock: the steps and the reports' facts go on.
        let result = declared.addingObserved(Self.observedIssuers(current, in: declared))
        lock.lock()
        observedCatalogue = (generation, declared, result)
        lock.unlock()
        return result
    }

    /// `CTLogState.catchUpSummary` of the logs when it differs from what
    /// the last call returned: a footer or a log line says each move once.
    package func catchUpProgressIfMoved() -> String? {
        let summary = CTLogState.catchUpSummary(logStates)
        lock.lock()
        defer { lock.unlock() }
        guard summary != saidCatchUp else { return nil }
        saidCatchUp = summary
        return summary
    }

    /// Every followed log, in the order first seen.
    package var logStates: [CTLogState] {
        lock.lock()
        defer { lock.unlock() }
        return logOrder.compactMap { states[$0] }
    }
}
