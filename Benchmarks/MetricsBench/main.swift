// pinwatch-metrics-bench [json|deprecated] [HOSTS] [ITERATIONS]: how long
// `/metrics` (or, with `json`, a snapshot's JSON; with `deprecated`, the
// text with `deprecated_series: true`) takes to render for HOSTS synthetic
// hosts (each with a 3-level chain and both pin tiers), how large the text
// is and how many series it holds per host. Prints one line of figures;
// the first two renders (buffers growing) are not counted.
import Foundation
import PinwatchCore

let json = CommandLine.arguments.dropFirst().first == "json"
let deprecated = CommandLine.arguments.dropFirst().first == "deprecated"
let arguments = CommandLine.arguments.dropFirst().compactMap(Int.init)
let hostCount = arguments.first ?? 10_000
let iterations = arguments.dropFirst().first ?? 20
let now = Date()

func digest(_ seed: Int) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: $0 &+ seed) } }

let reports: [HostReport] = (0..<hostCount).map { index in
    let leafPin = Pin(kind: .spki, digest: digest(index), text: PinText.sha256(digest(index)))
    let caPin = Pin(kind: .spki, digest: digest(7), text: PinText.sha256(digest(7)))
    let host = HostConfig(host: "host-\(index).fleet.example", port: 443, pins: PinSet(ca: [caPin], leaf: [leafPin]))
    let chain = (0..<3).map { level -> ChainCertificate in
        let key = level == 0 ? digest(index) : digest(level == 2 ? 7 : 8)
        let facts = CertificateFacts(
            subject: level == 0 ? "CN=host-\(index).fleet.example" : "CN=Bench CA \(level),O=Bench",
            issuer: "CN=Bench CA \(level + 1),O=Bench", notBefore: now.addingTimeInterval(-86_400 * 30),
            notAfter: now.addingTimeInterval(86_400 * Double(20 + index % 70)), keyDescription: "ECDSA P-256",
            spkiSHA256: key, keySHA256: key, certSHA256: key, isSelfSigned: level == 2)
        return ChainCertificate(facts: facts, fromServer: level < 2)
    }
    let result = ProbeResult(address: "127.0.0.1", chain: chain, sentCount: 2, trusted: true, elapsed: 0.012, finishedAt: now)
    return Verdict.report(for: host, result: result, now: now, warnDays: 21, criticalDays: 7)
}

// One renderer for every cycle, as `serve` keeps one.
let renderer = PrometheusRenderer()
var samples: [Double] = []
var bytes = 0
var hostSeries = 0
for _ in 0..<(iterations + 2) {
    let started = DispatchTime.now().uptimeNanoseconds
    if json {
        bytes = JSONReport.render(reports, generatedAt: now).utf8.count
    } else {
        let text = renderer.render(
            reports, cycle: .init(finishedAt: now, duration: 12, completedCycles: 1), version: "bench", deprecatedSeries: deprecated)
        bytes = text.count
        if hostSeries == 0 {
            // Samples that name a host: every line but comments and the
            // whole-render counts.
            hostSeries =
                text.split(separator: UInt8(ascii: "\n")).filter { $0.first != UInt8(ascii: "#") && $0.contains(UInt8(ascii: "{")) }
                .filter { String(decoding: $0, as: UTF8.self).contains("host=\"") }.count
        }
    }
    samples.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
}
let measured = samples.dropFirst(2).sorted()
print(
    String(
        format: "hosts=%d iterations=%d render_median_ms=%.3f render_max_ms=%.3f bytes=%d series_per_host=%.1f", hostCount,
        measured.count, measured[measured.count / 2], measured.last ?? 0, bytes, Double(hostSeries) / Double(max(1, hostCount))))
