import Foundation
import PinwatchCore

@testable import PinwatchUI

/// Hosts and synthetic probe results turned into reports by the verdict
/// code: the UI tests need no sockets and no terminal.
enum Fixture {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let utc = TimeZone(identifier: "UTC")!

    static func digest(_ seed: UInt8) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &+ Int(seed) &* 7) } }

    static func pin(_ seed: UInt8) -> Pin {
        Pin(kind: .spki, digest: digest(seed), text: "sha256/" + Data(digest(seed)).base64EncodedString())
    }

    static let caPin = pin(200)
    static let leafPin = pin(100)
    static let pinned = PinSet(ca: [caPin], leaf: [leafPin])

    static func host(_ name: String, port: Int = 443, pins: PinSet = pinned) -> HostConfig {
        HostConfig(host: name, port: port, pins: pins)
    }

    static func facts(subject: String, daysLeft: Int, seed: UInt8) -> CertificateFacts {
        CertificateFacts(
            subject: subject, issuer: "CN=Issuer \(seed)", notBefore: now.addingTimeInterval(-86400 * 30),
            notAfter: now.addingTimeInterval(Double(daysLeft) * 86400 + 3600), keyDescription: "ECDSA P-256",
            spkiSHA256: digest(seed), keySHA256: digest(seed &+ 1), certSHA256: digest(seed &+ 2))
    }

    /// What a probe of `host` might have seen, so that the verdict finds
    /// `status`: level seeds leaf 0, intermediate 40, root 80, except that
    /// the root carries `caPin`'s key (seed 200) for `ok` and the leaf
    /// `leafPin`'s (seed 100) for `leaf_only`.
    static func result(
        for host: HostConfig, status: HostStatus, leafDays: Int = 60, leafSubject: String? = nil, finishedAt: Date = now
    ) -> ProbeResult {
        if status == .error {
            return ProbeResult(
                failure: ProbeFailure(kind: .refused, message: "connection refused"), elapsed: 0.004, finishedAt: finishedAt)
        }
        // Each level issued by the next, as a verified chain is: the
        // client's path is built issuer by issuer.
        let subjects = [leafSubject ?? "CN=\(host.host)", "CN=intermediate CA 1", "CN=root CA 2"]
        let chain = (0..<3).map { level in
            var seed = UInt8(level * 40)
            if status == .ok, level == 2 { seed = 200 }
            if status == .leafOnly, level == 0 { seed = 100 }
            var certificate = facts(subject: subjects[level], daysLeft: level == 0 ? leafDays : 3000, seed: seed)
            certificate.issuer = subjects[min(level + 1, 2)]
            certificate.isSelfSigned = level == 2
            return ChainCertificate(facts: certificate, fromServer: level < 2)
        }
        return ProbeResult(
            address: "127.0.0.1", chain: chain, sentCount: 2, trusted: true,
            elapsed: 0.012, finishedAt: finishedAt)
    }

    /// The report the verdict code makes of `result`, with the
    /// dashboard's thresholds: the UI is tested on what Core decides.
    static func verdict(for host: HostConfig, _ result: ProbeResult) -> HostReport {
        Verdict.report(for: host, result: result, now: now, warnDays: 21, criticalDays: 7)
    }

    /// The verdict's report of a probe that found `status`.
    static func report(
        for host: HostConfig, status: HostStatus, leafDays: Int = 60, leafSubject: String? = nil, finishedAt: Date = now
    ) -> HostReport {
        let report = verdict(
            for: host, result(for: host, status: status, leafDays: leafDays, leafSubject: leafSubject, finishedAt: finishedAt))
        precondition(report.status == status, "the fixture's chain must make the verdict say \(status), not \(report.status)")
        return report
    }

    /// A state with one host per status plus one still waiting, all recorded at `now`.
    static func mixedState() -> DashboardState {
        let names = ["alpha.example", "bravo.example", "charlie.example", "delta.example", "echo.example", "foxtrot.example"]
        let statuses: [HostStatus?] = [.ok, .leafOnly, .blocked, .error, .unpinned, nil]
        var hosts = names.map { host($0) }
        hosts[4] = host(names[4], pins: PinSet())
        var state = DashboardState(configPath: "/etc/pinwatch.yaml", hosts: hosts, themeName: "default", timeZone: utc)
        state.beginCycle(total: hosts.count, at: now.addingTimeInterval(-5))
        for (index, status) in statuses.enumerated() {
            guard let status else { continue }
            state.record(
                report(for: hosts[index], status: status, leafDays: status == .leafOnly ? 23 : 60), forHost: index,
                at: now.addingTimeInterval(-120))
        }
        state.finishCycle(at: now.addingTimeInterval(-1))
        state.nextCycleAt = now.addingTimeInterval(42)
        return state
    }

    static func text(_ frame: Frame) -> String { TextRenderer.render(frame) }

    /// A banner line (` ✗ BLOCKED host: …`, ` ⚠ WARNING ×2: …`), not a table row.
    static func isBannerLine(_ line: Substring) -> Bool {
        let tags = [
            "BLOCKED", "LEAF ONLY", "ERROR", "EXPIRED", "EXPIRING", "INTERCEPTED", "CHAIN CHANGED", "PINS EXPIRING", "PINS EXPIRED",
            "CRITICAL", "UNKNOWN", "WARNING",
        ]
        return ["✗", "!", "⚠"].contains { symbol in tags.contains { line.hasPrefix(" \(symbol) \($0)") } }
    }

    static func isBannerLine(_ line: String) -> Bool { isBannerLine(Substring(line)) }

    static func lines(_ frame: Frame) -> [String] { (0..<frame.height).map { frame.text(ofRow: $0) } }
}
