import Foundation
import PinwatchCore
import PinwatchProbe

/// One log after a cycle: where it is verified to, and what went wrong.
package struct CTLogStatus: Sendable {
    package let log: CTLogDescription
    /// The size of its last verified tree; nil before the first.
    package let verifiedSize: UInt64?
    /// Why this cycle's step failed; nil when it did not.
    package let error: CTLogError?
    /// While a tree larger than the cycle's budget is read.
    package let catchingUp: (read: UInt64, of: UInt64)?
    /// After a 429 or 5xx answer: the log is not asked again before this.
    package var backingOffUntil: Date? = nil

    /// What it signed or served contradicts itself: `ct_log_misbehaving`.
    package var isMisbehaving: Bool { error?.isMisbehaviour ?? false }
}

/// A hosted search after a cycle, for one queried name: where its cursor
/// stands and what went wrong.
package struct CTSearchStatus: Sendable {
    /// The name queried (with its subdomains).
    package let domain: String
    /// The `after` cursor: the last issuance read; nil before the first.
    package let cursor: String?
    package let error: CTLogError?
    /// After a 429 or 5xx answer: not asked again before this.
    package var backingOffUntil: Date? = nil
}

/// What a cycle found: the certificates logged for each watched host (by
/// its `sni`), newest first, and each log's state.
package struct CTCycle: Sendable {
    package var logged: [String: [CTLoggedCertificate]] = [:]
    package var logs: [CTLogStatus] = []
    /// The hosted search's queries, when one is configured.
    package var search: [CTSearchStatus] = []
}

/// Follows every log of a list (RFC 6962 and static-ct-api) for the names
/// a configuration watches, and judges each new certificate for a
/// configured host per client release (`CTChainJudge`). A log that fails
/// is reported by name with its reason, its entries ignored; the other
/// logs go on.
package final class CTWatch {
    /// A log that answered 429 or 5xx is left alone for `first`, then twice
    /// as long after each further such answer, up to `maximum`.
    package struct Backoff: Sendable {
        package var first: TimeInterval = 60
        package var maximum: TimeInterval = 3_600

        package init() {}
    }

    private let followers: [CTLogFollower]
    private let backoff: Backoff
    /// By log id: consecutive 429/5xx answers, and when the log may be asked again.
    private var shedding: [[UInt8]: (answers: Int, until: Date)] = [:]
    private let serverNames: [String]
    private let watched: CTWatchedNames
    private let clients: [ClientPolicy]
    private let store: TrustStore
    private let search: CTSearchClient?
    /// By queried name: the last issuance read.
    package private(set) var searchCursors: [String: String]
    private let searchPages: Int
    /// Issuers by SPKI SHA-256: a search names an issuer by its key only.
    private let knownIssuers: [[UInt8]: CertificateFacts]

    /// `positions` by log id: where each log was verified to before (none:
    /// it starts at the log's size of the first cycle, without its history).
    /// `store` judges releases without a `trust_store:` of their own.
    /// `search` is a hosted search asked for every configured host's name
    /// and its subdomains, from `searchCursors` (by name; none: from the
    /// first issuance the service holds), at most `searchPages` pages per
    /// name and cycle. A search names an issuer by its key only: its chain
    /// is the issuer among `knownIssuers` (catalogue intermediates, served
    /// chains) with that key, else the leaf alone.
    package init(
        logs: [CTLogDescription], config: Config, store: TrustStore, positions: [[UInt8]: VerifiedLogPosition] = [:],
        limits: RFC6962Client.Limits = RFC6962Client.Limits(), backoff: Backoff = Backoff(), search: CTSearchClient? = nil,
        searchCursors: [String: String] = [:], searchPages: Int = 10, knownIssuers: [CertificateFacts] = []
    ) {
        self.backoff = backoff
        self.search = search
        self.searchCursors = searchCursors
        self.searchPages = max(1, searchPages)
        var issuers: [[UInt8]: CertificateFacts] = [:]
        for facts in knownIssuers + store.anchors where issuers[facts.spkiSHA256] == nil { issuers[facts.spkiSHA256] = facts }
        self.knownIssuers = issuers
        followers = logs.map { log in
            let client: any CTLogReader
            switch log.interface {
            case .rfc6962(let url): client = RFC6962Client(baseURL: url, limits: limits)
            case .staticCTAPI(let submission, let monitoring):
                client = StaticCTClient(log: log, submissionURL: submission, monitoringURL: monitoring, limits: limits)
            }
            return CTLogFollower(log: log, client: client, position: positions[log.logID])
        }
        var names: [String] = []
        for host in config.hosts where !names.contains(host.serverName.lowercased()) { names.append(host.serverName.lowercased()) }
        serverNames = names
        watched = CTWatchedNames(config: config)
        clients = config.clients
        self.store = store
    }

    /// Where each followed log is verified to, by log id: what the next
    /// run starts from.
    package var positions: [[UInt8]: VerifiedLogPosition] {
        var positions: [[UInt8]: VerifiedLogPosition] = [:]
        for follower in followers { positions[follower.log.logID] = follower.position }
        return positions
    }

    /// One step of every log, each reading at most `budget` entries.
    package func cycle(now: Date, budget: UInt64 = .max) -> CTCycle {
        var cycle = CTCycle()
        for follower in followers {
            let id = follower.log.logID
            if let shed = shedding[id], now < shed.until {
                var status = CTLogStatus(log: follower.log, verifiedSize: follower.position?.treeSize, error: nil, catchingUp: nil)
                status.backingOffUntil = shed.until
                cycle.logs.append(status)
                continue
            }
            do {
                let advance = try follower.advance(keeping: watched.matches, budget: budget)
                for entry in advance.entries { judge(entry, from: follower.log, now: now, into: &cycle) }
                shedding[id] = nil
                cycle.logs.append(
                    CTLogStatus(
                        log: follower.log, verifiedSize: advance.position.treeSize, error: nil, catchingUp: advance.catchingUp))
            } catch {
                var status = CTLogStatus(log: follower.log, verifiedSize: follower.position?.treeSize, error: error, catchingUp: nil)
                status.backingOffUntil = shed(id, after: error, now: now)
                cycle.logs.append(status)
            }
        }
        if let search { ask(search, now: now, into: &cycle) }
        for host in cycle.logged.keys {
            cycle.logged[host]?.sort { ($0.loggedAt, $0.index) > ($1.loggedAt, $1.index) }
        }
        return cycle
    }

    /// After a 429 or 5xx: when `id` may be asked again (nil, and the
    /// count reset, after any other outcome).
    private func shed(_ id: [UInt8], after error: CTLogError?, now: Date) -> Date? {
        guard case .httpStatus(let code, _) = error, code == 429 || (500...599).contains(code) else {
            shedding[id] = nil
            return nil
        }
        let answers = (shedding[id]?.answers ?? 0) + 1
        let wait = min(backoff.maximum, backoff.first * pow(2, Double(min(answers - 1, 30))))
        shedding[id] = (answers, now.addingTimeInterval(wait))
        return now.addingTimeInterval(wait)
    }

    /// Each configured host's name and its subdomains, page after page from
    /// its cursor, each page's issuances judged before the cursor moves past them.
    private func ask(_ search: CTSearchClient, now: Date, into cycle: inout CTCycle) {
        for domain in serverNames {
            let id = Array("search \(domain)".utf8)
            if let shed = shedding[id], now < shed.until {
                var status = CTSearchStatus(domain: domain, cursor: searchCursors[domain], error: nil)
                status.backingOffUntil = shed.until
                cycle.search.append(status)
                continue
            }
            var failure: CTLogError?
            for _ in 0..<searchPages {
                do {
                    let page = try search.issuances(domain: domain, after: searchCursors[domain])
                    guard let last = page.last else { break }
                    for issuance in page { judge(issuance, from: search, now: now, into: &cycle) }
                    searchCursors[domain] = last.id
                } catch {
                    failure = error
                    break
                }
            }
            var status = CTSearchStatus(domain: domain, cursor: searchCursors[domain], error: failure)
            status.backingOffUntil = shed(id, after: failure, now: now)
            cycle.search.append(status)
        }
    }

    /// An issuance from a search, judged as a log entry is: the leaf and the
    /// known issuer with its key. The service gives no log timestamp: it is
    /// dated by its not-before, which a CA sets when it logs it.
    private func judge(_ issuance: CTIssuance, from search: CTSearchClient, now: Date, into cycle: inout CTCycle) {
        guard let certificate = try? X509Certificate(der: issuance.certificateDER) else { return }
        let leaf = certificate.facts
        let served = [leaf] + (knownIssuers[issuance.issuerSPKISHA256].map { [$0] } ?? [])
        for host in serverNames where Self.covers(leaf.subjectAltNames, host) {
            let verdict = CTChainJudge.judge(served: served, name: host, clients: clients, store: store, now: now)
            let logged = CTLoggedCertificate(
                loggedAt: leaf.notBefore, log: "search \(search.baseURL.host ?? "service")", index: UInt64(issuance.id) ?? 0,
                precertificate: issuance.isPrecertificate, serial: certificate.serialHex, notBefore: leaf.notBefore,
                notAfter: leaf.notAfter, issuer: leaf.issuer, issuerSPKISHA256: issuance.issuerSPKISHA256,
                leafSPKISHA256: leaf.spkiSHA256, verdict: verdict)
            // The same issuance found under two queried names counts once.
            if cycle.logged[host]?.contains(logged) != true { cycle.logged[host, default: []].append(logged) }
        }
    }

    private func judge(_ entry: CTLogEntry, from log: CTLogDescription, now: Date, into cycle: inout CTCycle) {
        guard let certificate = try? X509Certificate(der: entry.certificateDER), let served = entry.chainFacts,
            let leaf = served.first
        else { return }
        for host in serverNames where Self.covers(leaf.subjectAltNames, host) {
            let verdict = CTChainJudge.judge(served: served, name: host, clients: clients, store: store, now: now)
            cycle.logged[host, default: []].append(
                CTLoggedCertificate(
                    loggedAt: Date(timeIntervalSince1970: Double(entry.timestamp) / 1_000), log: log.description, index: entry.index,
                    precertificate: entry.isPrecertificate, serial: certificate.serialHex, notBefore: leaf.notBefore,
                    notAfter: leaf.notAfter, issuer: leaf.issuer, issuerSPKISHA256: served.dropFirst().first?.spkiSHA256 ?? [],
                    leafSPKISHA256: leaf.spkiSHA256, verdict: verdict, chainDER: [entry.certificateDER] + entry.chain))
        }
    }

    /// Whether a certificate for `names` is valid for `host`: the name
    /// itself, or a wildcard one label above it.
    package static func covers(_ names: [String], _ host: String) -> Bool {
        names.contains { name in
            let name = name.lowercased()
            if name == host { return true }
            guard name.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
            return host[host.index(after: dot)...] == name.dropFirst(2)
        }
    }
}
