import Foundation
import PinwatchCore
import XCTest

@testable import PinwatchFleet

/// A fleet row's JSON says what its series say and null for the rest:
/// no placeholder (a start of validity in year 1, a CA that expires in
/// 4001, an empty digest) reads as a fact.
final class FleetJSONRowTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let leafExpiry = 1_800_000_000 + 20 * 86_400.0
    private let caExpiry = 1_800_000_000 + 10 * 86_400.0

    private func sample(_ extra: [String: String], _ value: Double = 1, host: String = "api.test") -> VectorSample {
        VectorSample(
            labels: ["job": "pinwatch", "instance": "serve:9715", "host": host, "port": "443"].merging(extra) { $1 }, value: value)
    }

    private let leafPin = String(repeating: "A", count: 43) + "="
    private let issuerPin = String(repeating: "B", count: 43) + "="

    /// One host's series as the current exporter writes them: the leaf and
    /// its issuer, the issuer expiring first.
    private func series(of host: String, severity: String, headline: String) -> [VectorSample] {
        let reason: [String: String] = [
            "__name__": "pinwatch_host_reason_info", "status": "ok", "severity": severity, "headline": headline, "tiers": "ca",
            "reason": "why",
        ]
        let chain: [String: String] = [
            "__name__": "pinwatch_chain_info", "spki_sha256": leafPin, "subject": "CN=\(host)", "leaf_pin": "none", "ca_pin": "match",
            "ca_pin_levels": "1", "ca_chain": "c1",
        ]
        let earliest: [String: String] = ["__name__": "pinwatch_chain_not_after_timestamp_seconds", "level": "1", "role": "intermediate"]
        return [
            sample(reason, host: host), sample(chain, host: host),
            sample(["__name__": "pinwatch_leaf_not_after_timestamp_seconds"], leafExpiry, host: host),
            sample(earliest, caExpiry, host: host),
        ]
    }

    /// `api.test` expiring, `untrusted.test` alerting untrusted, and their
    /// instance's cycle and CA level.
    private var samples: [VectorSample] {
        let exporter = ["job": "pinwatch", "instance": "serve:9715"]
        let level: [String: String] = [
            "__name__": "pinwatch_ca_level_info", "ca_chain": "c1", "level": "1", "role": "intermediate", "spki_sha256": issuerPin,
            "subject": "CN=Issuing CA",
        ]
        var samples = [
            VectorSample(labels: exporter.merging(["__name__": "pinwatch_last_cycle_timestamp_seconds"]) { $1 }, value: 1_799_999_990),
            VectorSample(labels: exporter.merging(level) { $1 }, value: 1),
        ]
        samples += series(of: "api.test", severity: "warning", headline: "expiring")
        samples += series(of: "untrusted.test", severity: "critical", headline: "blocked")
        samples.append(sample(["__name__": "pinwatch_host_alert", "alert": "untrusted"], host: "untrusted.test"))
        samples.append(sample(["__name__": "pinwatch_host_alert", "alert": "proxy"], host: "untrusted.test"))
        samples.append(sample(["__name__": "pinwatch_next_chain_survives", "scenario": "leaf_renewal"], 1))
        samples.append(sample(["__name__": "pinwatch_next_chain_survives", "scenario": "intermediate_rotation"], 0))
        return samples
    }

    /// `host`'s JSON in the snapshot of `samples` (the fleet above by default).
    private func json(_ host: String, from samples: [VectorSample]? = nil) throws -> [String: Any] {
        let fleet = FleetSnapshot(samples ?? self.samples, probeSeries: false)
        let row = try XCTUnwrap(fleet.hosts.first { $0.host == host }, "\(fleet.hosts.map(\.host))")
        let text = JSONReport.renderHost(row.report(now: now))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testWhatNoSeriesCarriesIsNull() throws {
        let host = try json("api.test")
        let chain = try XCTUnwrap(host["chain"] as? [[String: Any]])
        XCTAssertEqual(chain.count, 2)
        for level in chain {
            for field in ["from_server", "issuer", "not_before", "key", "key_sha256", "cert_sha256", "lifetime_days", "lifetime_used"] {
                XCTAssertTrue(level[field] is NSNull, "level \(level["level"] ?? "?") \(field): \(level[field] ?? "absent")")
            }
        }
        XCTAssertEqual(chain[0]["subject"] as? String, "CN=api.test")
        XCTAssertEqual(chain[1]["subject"] as? String, "CN=Issuing CA")
        XCTAssertTrue(host["elapsed_ms"] is NSNull, "an ok row's probe time is not read: \(host["elapsed_ms"] ?? "absent")")
    }

    func testDatesAreTheSeriesOwn() throws {
        let host = try json("api.test")
        let chain = try XCTUnwrap(host["chain"] as? [[String: Any]])
        XCTAssertEqual(chain[0]["not_after"] as? String, DateText.iso8601(Date(timeIntervalSince1970: leafExpiry)))
        XCTAssertEqual(chain[0]["days_left"] as? Int, 20)
        XCTAssertEqual(chain[1]["not_after"] as? String, DateText.iso8601(Date(timeIntervalSince1970: caExpiry)))
        XCTAssertEqual(chain[1]["days_left"] as? Int, 10)
        XCTAssertEqual(host["leaf_days_left"] as? Int, 20)
        XCTAssertEqual(host["days_left"] as? Int, 10, "the level that expires first")
        XCTAssertEqual(host["earliest_level"] as? Int, 1)
    }

    func testAnUndatedLevelHasNoDate() throws {
        // Without the chain's earliest expiry, the issuer's date is unknown.
        let host = try json("api.test", from: samples.filter { $0.labels["__name__"] != "pinwatch_chain_not_after_timestamp_seconds" })
        let chain = try XCTUnwrap(host["chain"] as? [[String: Any]])
        XCTAssertTrue(chain[1]["not_after"] is NSNull, "\(chain[1])")
        XCTAssertTrue(chain[1]["days_left"] is NSNull, "\(chain[1])")
        XCTAssertEqual(host["days_left"] as? Int, 20, "the leaf's: the only date the series give")
    }

    func testSurvivalIsTheInstancesVerdictPerScenario() throws {
        let survives = try XCTUnwrap(try json("api.test")["survives"] as? [String: Any])
        XCTAssertEqual(survives["leaf_renewal"] as? Bool, true)
        XCTAssertEqual(survives["intermediate_rotation"] as? Bool, false)
        XCTAssertTrue(survives["root_transition"] is NSNull, "not judged: no series")
        XCTAssertTrue(survives["ca_switch"] is NSNull)
        let none = try XCTUnwrap(try json("untrusted.test")["survives"] as? [String: Any])
        XCTAssertTrue(none.values.allSatisfy { $0 is NSNull }, "\(none)")
    }

    func testAFailedProbesMessageIsItsOwn() throws {
        let failed = [
            sample(
                [
                    "__name__": "pinwatch_host_reason_info", "status": "error", "severity": "unknown", "headline": "error",
                    "reason": "probe failed (timeout): timed out after 2 s during the TLS handshake",
                ], host: "gone.test"),
            sample(["__name__": "pinwatch_probe_error", "kind": "timeout"], host: "gone.test"),
            // An older exporter's words, or another's: kept whole.
            sample(
                [
                    "__name__": "pinwatch_host_reason_info", "status": "error", "severity": "unknown", "headline": "error",
                    "reason": "refused",
                ],
                host: "odd.test"),
            sample(["__name__": "pinwatch_probe_error", "kind": "refused"], host: "odd.test"),
        ]
        let gone = try json("gone.test", from: samples + failed)
        XCTAssertEqual(gone["reason"] as? String, "probe failed (timeout): timed out after 2 s during the TLS handshake")
        let error = try XCTUnwrap(gone["error"] as? [String: Any])
        XCTAssertEqual(error["kind"] as? String, "timeout")
        XCTAssertEqual(error["message"] as? String, "timed out after 2 s during the TLS handshake", "as the probe said it")
        XCTAssertEqual((try json("odd.test", from: samples + failed)["error"] as? [String: Any])?["message"] as? String, "refused")
    }

    func testTrustAndTheProxyAreTheirAlerts() throws {
        let api = try json("api.test")
        let untrusted = try json("untrusted.test")
        XCTAssertEqual(api["trusted"] as? Bool, true)
        XCTAssertEqual(untrusted["trusted"] as? Bool, false)
        XCTAssertEqual((api["proxy"] as? [String: Any])?["detected"] as? Bool, false)
        XCTAssertEqual((untrusted["proxy"] as? [String: Any])?["detected"] as? Bool, true, "the proxy alert")
        XCTAssertEqual((untrusted["proxy"] as? [String: Any])?["intercepted"] as? Bool, false)
    }
}
