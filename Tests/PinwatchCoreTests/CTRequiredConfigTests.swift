import Foundation
import XCTest

@testable import PinwatchCore

/// `ct_required:` on a release, and `ct: logs:` read for it only: its keys
/// reach the probe targets of the hosts that release decides.
final class CTRequiredConfigTests: XCTestCase {
    private struct Unreadable: Error, CustomStringConvertible {
        var description: String { "no such file" }
    }

    private let key = SCTLogKey(logID: [7], key: [1, 2], operatorName: "Operator A", state: "usable")

    private func loader(logs: @escaping @Sendable (String) throws -> SCTLogKeys) -> ConfigLoader {
        ConfigLoader(
            certificateDigests: { _ in [] },
            clientReader: { source in
                ImportedPins(
                    file: source.locationText, format: .nsc,
                    rules: [ClientPinRule(domain: "api.example.com", pins: [], origin: "\(source.locationText):3")])
            }
        ).readingCTLogs(with: logs)
    }

    private func yaml(ctRequired: String, logs: Bool = true) -> String {
        (logs ? "ct:\n  logs: logs.json\n" : "")
            + "hosts:\n  - host: other.example.com\nclients:\n  - name: android 9\n    nsc: nsc.xml\n    ct_required: \(ctRequired)\n"
    }

    func testTheLogsAreReadForAReleaseThatRequiresCTAndReachItsHostsTargets() throws {
        let key = self.key
        let config = try loader { path in
            XCTAssertEqual(path, "/etc/pinwatch/logs.json")
            return SCTLogKeys([key])
        }.load(yaml: yaml(ctRequired: "true"), path: "/etc/pinwatch/pinwatch.yaml")
        XCTAssertEqual(config.clients.first?.ctRequired, true)
        XCTAssertEqual(config.sctLogs, SCTLogKeys([key]))
        let targets = Dictionary(uniqueKeysWithValues: config.probeTargets(environment: [:]).map { ($0.serverName, $0) })
        XCTAssertEqual(targets["api.example.com"]?.sctLogs, SCTLogKeys([key]))
        XCTAssertNil(targets["other.example.com"]?.sctLogs, "no release requires CT there: no SCTs asked for")
    }

    func testNoReleaseRequiringCTReadsNoLogs() throws {
        let config = try loader { _ in
            XCTFail("read without a release that needs it")
            return SCTLogKeys([])
        }.load(yaml: yaml(ctRequired: "false"), path: "/etc/pinwatch/pinwatch.yaml")
        XCTAssertNil(config.sctLogs)
        XCTAssertEqual(config.clientWarnings, [])
    }

    func testAnUnreadableListIsAProblemOnItsLineAndNoListIsAWarning() {
        do {
            _ = try loader { _ in throw Unreadable() }.load(yaml: yaml(ctRequired: "true"), path: "/etc/pinwatch/pinwatch.yaml")
            XCTFail("an unreadable list was accepted")
        } catch {
            XCTAssertEqual(error.problems.map(\.line), [2])
            XCTAssertEqual(error.problems.first?.key, "ct.logs")
            XCTAssertEqual(error.problems.first?.message, "\"/etc/pinwatch/logs.json\": no such file")
        }
        let config = try? loader { _ in SCTLogKeys([]) }.load(yaml: yaml(ctRequired: "true", logs: false), path: "/etc/p.yaml")
        XCTAssertEqual(
            config?.clientWarnings,
            [
                "/etc/p.yaml: client \"android 9\" requires Certificate Transparency, but there is no ct: logs: to check SCTs with: "
                    + "its hosts say so instead of ct_noncompliant"
            ])
        XCTAssertThrowsError(
            try loader { _ in SCTLogKeys([]) }.load(yaml: yaml(ctRequired: "maybe"), path: "/etc/p.yaml"), "not a boolean")
    }
}
