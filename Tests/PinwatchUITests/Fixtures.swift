import Foundation
import PinwatchCore

@testable import PinwatchUI

/// Hand-built hosts and reports: the UI tests need no sockets and no terminal.
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

    /// A report shaped like the verdict code would produce for `status`.
    static func report(
        for host: HostConfig, status: HostStatus, leafDays: Int = 60, levelCount: Int = 3,
        leafSubject: String? = nil, extraAlerts: [HostAlert] = [], finishedAt: Date = now
    ) -> HostReport {
        if status == .error {
            let failure = ProbeFailure(kind: .refused, message: "connection refused")
            let result = ProbeResult(failure: failure, elapsed: 0.004, finishedAt: finishedAt)
            return HostReport(
                config: host, result: result, status: .error, matchedTiers: [], alerts: [.probeError], levels: [],
                leafDaysLeft: nil, proxy: ProxyReport())
        }
        var levels: [LevelReport] = []
        for level in 0..<levelCount {
            let isLast = level == levelCount - 1
            let role = ChainRole.role(ofLevel: level, isSelfSigned: isLast, isTrustAnchor: isLast)
            let subject = level == 0 ? (leafSubject ?? "CN=\(host.host)") : "CN=\(role.rawValue) CA \(level)"
            let days = level == 0 ? leafDays : 3000
            let certificate = ChainCertificate(
                facts: facts(subject: subject, daysLeft: days, seed: UInt8(level * 40)), fromServer: role != .root)
            var matches: [PinMatch] = []
            if status == .ok, role == .root { matches = [PinMatch(tier: .ca, pin: caPin)] }
            if status == .leafOnly, role == .leaf { matches = [PinMatch(tier: .leaf, pin: leafPin)] }
            levels.append(LevelReport(level: level, role: role, certificate: certificate, matches: matches, daysLeft: days))
        }
        var alerts: [HostAlert] = []
        switch status {
        case .leafOnly: alerts.append(.leafOnly)
        case .blocked: alerts.append(.noMatch)
        default: break
        }
        if leafDays < 0 {
            alerts.append(.expired)
        } else if leafDays <= 7 {
            alerts.append(.criticalExpiry)
        } else if leafDays <= 21 {
            alerts.append(.expiring)
        }
        alerts += extraAlerts
        let tiers: [PinTier] = status == .ok ? [.ca] : status == .leafOnly ? [.leaf] : []
        let result = ProbeResult(
            address: "127.0.0.1", chain: levels.map(\.certificate), sentCount: levelCount - 1, trusted: true,
            elapsed: 0.012, finishedAt: finishedAt)
        return HostReport(
            config: host, result: result, status: status, matchedTiers: tiers, alerts: alerts, levels: levels,
            leafDaysLeft: leafDays, proxy: ProxyReport())
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
