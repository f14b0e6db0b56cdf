// pinwatch-fleet-bench HOSTS SHARDS DIR: the `/metrics` text of HOSTS
// synthetic hosts split over SHARDS exporters, written as DIR/shardI.prom
// (I from 0), each rendered by the exporter's own renderer as one `serve`
// of that shard would answer; Benchmarks/fleet-100k.sh serves them to a
// real Prometheus. Host I belongs to shard I % SHARDS. The mix: most
// hosts ok, 5 % warning, 2 % critical by expiry, 1 % blocked by their pins,
// 1 % unknown (a timed-out probe), in every shard; every chain has 3 levels and every host
// a CA and a leaf pin. Prints one line per shard: its file, hosts, bytes.
import Foundation
import PinwatchCore

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let hostCount = Int(arguments.first!), let shards = Int(arguments.dropFirst().first!),
    hostCount > 0, shards > 0
else {
    FileHandle.standardError.write(Data("usage: pinwatch-fleet-bench HOSTS SHARDS DIR\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments.last!)
let now = Date()

func digest(_ seed: Int) -> [UInt8] {
    var value = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15
    return (0..<32).map { _ in
        value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: value >> 33)
    }
}

let intermediateKey = digest(-1)
let rootKey = digest(-2)
let otherKey = digest(-3)

func report(_ index: Int) -> HostReport {
    let name = "host-\(index).fleet.example"
    let kind = (index / shards) % 100  // every shard gets the whole mix
    let leafKey = digest(index)
    // A blocked host's pins name none of its chain's keys.
    let pinnedCA = kind == 8 ? otherKey : intermediateKey
    let pinnedLeaf = kind == 8 ? digest(-index - 10) : leafKey
    let caPin = Pin(kind: .spki, digest: pinnedCA, text: PinText.sha256(pinnedCA))
    let leafPin = Pin(kind: .spki, digest: pinnedLeaf, text: PinText.sha256(pinnedLeaf))
    var host = HostConfig(host: name, port: 443, pins: PinSet(ca: [caPin], leaf: [leafPin]))
    host.labels = ["team": "team-\(index % 20)"]
    let days: Double =
        switch kind {
        case 1...5: Double(8 + index % 12)  // within warn_days
        case 6...7: Double(1 + index % 5)  // within critical_days
        default: Double(30 + index % 60)
        }
    let chain = (0..<3).map { level -> ChainCertificate in
        let key = [leafKey, intermediateKey, rootKey][level]
        let facts = CertificateFacts(
            subject: level == 0 ? "CN=\(name)" : "CN=Fleet Bench CA \(level),O=Fleet Bench",
            issuer: "CN=Fleet Bench CA \(min(level + 1, 2)),O=Fleet Bench", notBefore: now.addingTimeInterval(-86_400 * 30),
            notAfter: now.addingTimeInterval(86_400 * (level == 0 ? days : 3_650)), keyDescription: "ECDSA P-256",
            spkiSHA256: key, keySHA256: key, certSHA256: digest(index * 3 + level), isSelfSigned: level == 2)
        return ChainCertificate(facts: facts, fromServer: level < 2)
    }
    let result =
        kind == 9
        ? ProbeResult(failure: ProbeFailure(kind: .timeout, message: "no TLS handshake within 10s"), elapsed: 10, finishedAt: now)
        : ProbeResult(address: "192.0.2.\(index % 250 + 1)", chain: chain, sentCount: 2, trusted: true, elapsed: 0.02, finishedAt: now)
    return Verdict.report(for: host, result: result, now: now, warnDays: 21, criticalDays: 7)
}

try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let renderer = PrometheusRenderer()
for shard in 0..<shards {
    let reports = stride(from: shard, to: hostCount, by: shards).map(report)
    let cycle = PrometheusExposition.Cycle(finishedAt: now, duration: 60, completedCycles: 1, interval: 3_600)
    let bytes = renderer.render(reports, cycle: cycle, version: "fleet-bench")
    let file = directory.appendingPathComponent("shard\(shard).prom")
    try Data(bytes).write(to: file)
    let severities = Dictionary(grouping: reports, by: { "\($0.severity)" }).mapValues(\.count)
    let counts = severities.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    print("\(file.path) hosts=\(reports.count) bytes=\(bytes.count) \(counts.joined(separator: " "))")
}
