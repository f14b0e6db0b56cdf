import Foundation
import PinwatchCore
import PinwatchHistory
import PinwatchLocalWorld
import PinwatchMonitor
import PinwatchProbe
import PinwatchTestSupport
import XCTest

/// Every feature that touches a report (acknowledgements, labels, variants,
/// clients, next chains, history) survives a plain host and a host of
/// several probes alike, through the one-shot cycle (`check`, `snapshot`)
/// and the long-running one (`watch`, `serve`): the poller has one probe
/// path and one ordered list of finishing steps.
final class HostPollerFinishingTests: XCTestCase {
    private enum Shape: String, CaseIterable {
        case plain, keyTypes, everyAddress
    }

    private var pki: TestPKI!
    private var server: LocalTLSServer!
    private var leafPin: Pin!
    private var intermediatePin: Pin!
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        pki = try TestPKI()
        let identity = try pki.identity(key: try .ecdsa(.p256))
        server = try LocalTLSServer(identity: identity)
        leafPin = LocalWorld.spkiPin(identity.chain[0])
        intermediatePin = LocalWorld.spkiPin(pki.intermediate.certificate)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("finishing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        server?.stop()
        if let directory { try? FileManager.default.removeItem(at: directory) }
        try super.tearDownWithError()
    }

    /// `api.test` pinned at its leaf only (leaf_only: a warning worth
    /// silencing), with labels, a silence and a client release that pins it.
    /// Where the acknowledgement comes from: `silence:` in the file, or the
    /// dashboard's `a`, read from the store by the ledger.
    private enum Source: CaseIterable {
        case silence, dashboard
    }

    private func config(_ shape: Shape, _ source: Source = .silence) -> Config {
        var host: HostConfig
        switch shape {
        case .plain, .keyTypes:
            host = HostConfig(host: "api.test", port: server.port, connectAddress: "127.0.0.1", trust: pki.trust)
        case .everyAddress:
            // An address literal resolves to itself, without the system's resolver configuration.
            host = HostConfig(host: "127.0.0.1", port: server.port, serverName: "api.test", trust: pki.trust)
            host.addresses = .all
        }
        if shape == .keyTypes { host.keyTypes = [.ecdsa] }
        host.pins = PinSet(leaf: [leafPin])
        host.labels = ["team": "payments"]
        if source == .silence { host.silence = HostSilence(until: Date().addingTimeInterval(86_400), reason: "leaf pin goes Friday") }
        let rule = ClientPinRule(domain: host.serverName, pins: [intermediatePin], origin: "app.xml:3")
        let client = ClientPolicy(name: "android 5.2", pins: ImportedPins(file: "app.xml", format: .nsc, rules: [rule]))
        var config = Config(timeout: 5, hosts: [host], state: .off)
        config.clients = [client]
        return config
    }

    private func poller(_ shape: Shape, _ source: Source) throws -> HostPoller {
        let store = try HistoryStore(path: directory.appendingPathComponent("\(shape)-\(source).sqlite").path, mode: .writer)
        let config = config(shape, source)
        let identity = config.hosts[0].identityKey
        let stored = Acknowledgement(
            hostIdentity: identity, until: Date().addingTimeInterval(86_400), reason: "leaf pin goes Friday", by: "ana",
            at: Date(), source: .dashboard, state: AcknowledgedState(severity: .warning, headline: .leafOnly))
        let ledger = source == .dashboard ? AcknowledgementLedger(readStored: { [stored] }) : AcknowledgementLedger()
        return HostPoller(config: config, environment: [:], history: store, acknowledgements: ledger)
    }

    private func longRunningCycle(_ poller: HostPoller) -> [HostReport] {
        let queue = DispatchQueue(label: "test.finishing")
        var reports: [HostReport] = []
        let finished = expectation(description: "cycle finished")
        poller.startCycle(on: queue, onReports: { reports += $0.map(\.report) }, onFinish: { _ in finished.fulfill() })
        wait(for: [finished], timeout: 20)
        return queue.sync { reports }
    }

    private func assertEveryFeature(_ report: HostReport?, _ shape: Shape, _ path: String) throws {
        let report = try XCTUnwrap(report, "\(shape), \(path): no report")
        let context = "\(shape), \(path): \(report.reason)"
        XCTAssertEqual(report.status, .leafOnly, context)
        XCTAssertEqual(report.acknowledgement?.reason, "leaf pin goes Friday", "acknowledged: \(context)")
        XCTAssertEqual(report.config.labels, ["team": "payments"], "labels: \(context)")
        XCTAssertEqual(report.clients.map(\.client), ["android 5.2"], "clients: \(context)")
        XCTAssertNotNil(report.nextChains, "next chains: \(context)")
        XCTAssertNotNil(report.history?.statusSince, "history: \(context)")
        switch shape {
        case .plain:
            XCTAssertEqual(report.variants.count, 0, "a plain host is one probe: \(context)")
            XCTAssertNil(report.variantAgreement, context)
        case .keyTypes:
            XCTAssertEqual(report.variants.map(\.variant.label), ["ecdsa"], context)
            XCTAssertEqual(report.variantAgreement, "ecdsa leaf_only", context)
        case .everyAddress:
            XCTAssertEqual(report.variants.map(\.variant.label), ["127.0.0.1"], context)
            XCTAssertEqual(report.variantAgreement, "1/1 same chain", context)
        }
    }

    func testEveryFeatureSurvivesEveryShapeOfHostInAOneShotCycle() throws {
        for shape in Shape.allCases {
            for source in Source.allCases {
                let reports = try poller(shape, source).runCycle()
                XCTAssertEqual(reports.count, 1)
                try assertEveryFeature(reports.first, shape, "runCycle, \(source)")
            }
        }
    }

    func testEveryFeatureSurvivesEveryShapeOfHostInALongRunningCycle() throws {
        for shape in Shape.allCases {
            for source in Source.allCases {
                let poller = try poller(shape, source)
                for cycle in 1...2 {
                    let reports = longRunningCycle(poller)
                    XCTAssertEqual(reports.count, 1)
                    try assertEveryFeature(reports.first, shape, "startCycle \(cycle), \(source)")
                }
            }
        }
    }

    /// `preflight` judges one chain as a host's clients would: a host of
    /// several probes gets the verdict, not a fold of one unnamed probe.
    func testAChainJudgedAloneIsNotFoldedForAHostOfSeveralProbes() throws {
        let served = try XCTUnwrap(try poller(.plain, .silence).runCycle().first)
        var config = config(.keyTypes)
        config.hosts[0].silence = nil
        let report = HostPoller.report(for: config.hosts[0], result: served.result, config: config)
        XCTAssertEqual(report.status, .leafOnly, report.reason)
        XCTAssertEqual(report.clients.map(\.client), ["android 5.2"])
        XCTAssertNil(report.variantAgreement)
        XCTAssertEqual(report.variants.count, 0)
    }
}
