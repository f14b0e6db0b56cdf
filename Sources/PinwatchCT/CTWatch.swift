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

/// What a cycle found: the certificates logged for each watched host (by
/// its `sni`), newest first, and each log's state.
package struct CTCycle: Sendable {
    package var logged: [String: [CTLoggedCertificate]] = [:]
    package var logs: [CTLogStatus] = []
}

/// Follows every RFC 6962 log of a list for the names a configuration
/// watches, and judges each new certificate for a configured host per
/// client release (`CTChainJudge`). A log that fails is reported by name
/// with its reason, its entries ignored; the other logs go on. Logs of
/// the static-ct-api are not followed yet.
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

    /// `positions` by log id: where each log was verified to before (none:
    /// it starts at the log's size of the first cycle, without its history).
    /// `store` judges releases without a `trust_store:` of their own.
    package init(
        logs: [CTLogDescription], config: Config, store: TrustStore, positions: [[UInt8]: VerifiedLogPosition] = [:],
        limits: RFC6962Client.Limits = RFC6962Client.Limits(), backoff: Backoff = Backoff()
    ) {
        self.backoff = backoff
        followers = logs.compactMap { log in
            guard case .rfc6962(let url) = log.interface else { return nil }
            return CTLogFollower(log: log, client: RFC6962Client(baseURL: url, limits: limits), position: positions[log.logID])
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
                if case .httpStatus(let code, _) = error, code == 429 || (500...599).contains(code) {
                    let answers = (shedding[id]?.answers ?? 0) + 1
                    let wait = min(backoff.maximum, backoff.first * pow(2, Double(min(answers - 1, 30))))
                    shedding[id] = (answers, now.addingTimeInterval(wait))
                    status.backingOffUntil = now.addingTimeInterval(wait)
                } else {
                    shedding[id] = nil
                }
                cycle.logs.append(status)
            }
        }
        for host in cycle.logged.keys {
            cycle.logged[host]?.sort { ($0.loggedAt, $0.index) > ($1.loggedAt, $1.index) }
        }
        return cycle
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
