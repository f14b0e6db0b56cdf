import Foundation
import PinwatchCore

@testable import PinwatchUI

/// The one fleet every golden file renders: each state a reader of an
/// output must be able to tell apart, made by the verdict, fold, client
/// and acknowledgement code from `Fixture`'s chains at `Fixture.now`.
enum GoldenFleet {
    static let now = Fixture.now

    /// The pool the next-chain host's CA issues from.
    static var catalogue: Catalogue { Fixture.poolCatalogue }

    /// Two releases of one app: ios 7.0 pins the pool host's leaf and a
    /// stale backup, android 5.2 its root.
    static let clients: [ClientPolicy] = {
        func policy(_ name: String, _ format: ClientFormat, pins: [UInt8]) -> ClientPolicy {
            let rule = ClientPinRule(
                domain: "pool.example", pins: pins.map { Fixture.pin($0) }, origin: "\(name).plist: TSKPinnedDomains.pool.example")
            return ClientPolicy(name: name, pins: ImportedPins(file: "\(name).plist", format: format, rules: [rule]))
        }
        return [policy("ios 7.0", .trustkit, pins: [0, 9]), policy("android 5.2", .nsc, pins: [80, 9])]
    }()

    /// Configuration order; `waiting.example` has no report yet.
    static let hosts: [HostConfig] = {
        var labelled = Fixture.host("ok.example")
        labelled.labels = ["team": "payments", "service": "checkout"]
        labelled.runbook = "https://runbooks.example/pins"
        var several = Fixture.host("several.example")
        several.addresses = .all
        several.keyTypes = [.ecdsa, .rsa]
        return [
            labelled, Fixture.host("leaf-only.example"), Fixture.host("blocked.example"), Fixture.host("expiring.example"),
            Fixture.host("error.example", port: 8443), Fixture.host("acknowledged.example"), several,
            Fixture.host("pool.example", pins: PinSet(ca: [Fixture.pin(40)])), Fixture.host("unpinned.example", pins: PinSet()),
            Fixture.host("hostile.example"), Fixture.host("waiting.example"),
        ]
    }()

    /// One report per host but the last, in configuration order.
    static let reports: [HostReport] = {
        let host = hosts
        return [
            Fixture.report(for: host[0], status: .ok),
            Fixture.report(for: host[1], status: .leafOnly, leafDays: 23),
            Fixture.report(for: host[2], status: .blocked),
            Fixture.report(for: host[3], status: .ok, leafDays: 5),
            Fixture.report(for: host[4], status: .error),
            acknowledged(Fixture.report(for: host[5], status: .leafOnly, leafDays: 40)),
            severalProbes(host[6]),
            nextChains(host[7]),
            Fixture.report(for: host[8], status: .unpinned),
            // A server's text reaches every output: each must escape it.
            Fixture.report(for: host[9], status: .ok, leafSubject: "CN=evil\u{1B}[31m\u{202E}\u{7}.example,O=Ünïcode"),
        ]
    }()

    private static func acknowledged(_ report: HostReport) -> HostReport {
        var book = AcknowledgementBook(stored: [
            Acknowledgement(
                hostIdentity: report.config.identityKey, until: now + 86_400, reason: "app 5.2 ships Friday", by: "ana", at: now,
                source: .dashboard, state: AcknowledgedState(of: report))
        ])
        return book.apply(report, now: now)
    }

    /// Two addresses offered ECDSA and one offered RSA; the second address
    /// serves a chain its pins do not match.
    private static func severalProbes(_ host: HostConfig) -> HostReport {
        func outcome(_ address: String, _ keyType: KeyTypeOffer, _ status: HostStatus) -> (variant: ProbeVariant, report: HostReport) {
            var result = Fixture.result(for: host, status: status)
            result.address = address
            return (ProbeVariant(address: address, keyType: keyType), Fixture.verdict(for: host, result))
        }
        guard
            let folded = VariantFold.fold([
                outcome("192.0.2.1", .ecdsa, .ok), outcome("192.0.2.2", .ecdsa, .blocked), outcome("192.0.2.1", .rsa, .ok),
            ])
        else { preconditionFailure("three probes fold into one report") }
        return folded
    }

    /// Pinned to the pool's intermediate: fine today, broken by four of
    /// the five next chains; seen by both client releases.
    private static func nextChains(_ host: HostConfig) -> HostReport {
        ClientVerdicts.apply(to: poolOwnVerdict, clients: clients, now: now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
    }

    /// The pool host's chain judged by its configured pins alone, before
    /// the client releases' views are folded in.
    static var poolOwnVerdict: HostReport {
        let host = hosts[poolIndex]
        return Verdict.report(
            for: host, result: Fixture.result(for: host, status: .blocked), now: now, warnDays: 21, criticalDays: 7, catalogue: catalogue)
    }

    static let errorIndex = 4
    static let acknowledgedIndex = 5
    static let severalIndex = 6
    static let poolIndex = 7
    static let hostileIndex = 9

    /// The dashboard after one cycle of the fleet, in UTC unless told.
    static func state(timeZone: TimeZone = Fixture.utc) -> DashboardState {
        var state = DashboardState(configPath: "/etc/pinwatch/pinwatch.yaml", hosts: hosts, themeName: "default", timeZone: timeZone)
        state.clients = clients.map { ($0.name, $0.pins.format) }
        state.beginCycle(total: hosts.count, at: now.addingTimeInterval(-5))
        for (index, report) in reports.enumerated() {
            state.record(report, forHost: index, at: now.addingTimeInterval(-120))
        }
        state.finishCycle(at: now.addingTimeInterval(-1))
        state.nextCycleAt = now.addingTimeInterval(42)
        return state
    }
}
