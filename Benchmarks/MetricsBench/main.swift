// pinwatch-metrics-bench [json|deprecated|breakdown] [HOSTS] [ITERATIONS]:
// how long `/metrics` (or, with `json`, a snapshot's JSON; with
// `deprecated`, the text with `deprecated_series: true`) takes to render
// for HOSTS synthetic hosts (each with a 3-level chain and both pin tiers),
// how large the text is and how many series it holds per host. Prints one
// line of figures; the first two renders (buffers growing) are not counted.
// `breakdown` adds where the bytes go: a line per family (its samples'
// bytes, HELP and TYPE included) and per label name (`name="value",` as
// written), largest first, and writes the text to the file
// `PINWATCH_METRICS_TEXT` names, when set (for `gzip -c FILE | wc -c`).
import Foundation
import PinwatchCore

let json = CommandLine.arguments.dropFirst().first == "json"
let deprecated = CommandLine.arguments.dropFirst().first == "deprecated"
let breakdown = CommandLine.arguments.dropFirst().first == "breakdown"
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
var lastText: [UInt8] = []
for _ in 0..<(iterations + 2) {
    let started = DispatchTime.now().uptimeNanoseconds
    if json {
        bytes = JSONReport.render(reports, generatedAt: now).utf8.count
    } else {
        let text = renderer.render(
            reports, cycle: .init(finishedAt: now, duration: 12, completedCycles: 1), version: "bench", deprecatedSeries: deprecated)
        bytes = text.count
        if breakdown { lastText = text }
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

if breakdown, let path = ProcessInfo.processInfo.environment["PINWATCH_METRICS_TEXT"] {
    guard FileManager.default.createFile(atPath: path, contents: Data(lastText)) else {
        FileHandle.standardError.write(Data("pinwatch-metrics-bench: cannot write \(path)\n".utf8))
        exit(1)
    }
}

if breakdown {
    // Each line's family is the name before `{` or ` ` (comments name it
    // as their third word); a label is counted from its name to the comma
    // or brace after its closing quote, escapes read as the format has them.
    var families: [String: Int] = [:]
    var familyOrder: [String] = []
    var labels: [String: Int] = [:]
    for line in lastText.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let text = String(decoding: line, as: UTF8.self)
        let family: String
        if text.hasPrefix("#") {
            let words = text.split(separator: " ")
            family = words.count > 2 ? String(words[2]) : text
        } else {
            family = String(text.prefix { $0 != "{" && $0 != " " })
        }
        if family.isEmpty { continue }
        if families[family] == nil { familyOrder.append(family) }
        families[family, default: 0] += line.count + 1
        guard !text.hasPrefix("#"), let open = line.firstIndex(of: UInt8(ascii: "{")) else { continue }
        var index = line.index(after: open)
        while index < line.endIndex, line[index] != UInt8(ascii: "}") {
            let start = index
            while index < line.endIndex, line[index] != UInt8(ascii: "=") { index += 1 }
            let name = String(decoding: line[start..<index], as: UTF8.self)
            index += 2  // `="`
            while index < line.endIndex, line[index] != UInt8(ascii: "\"") {
                if line[index] == UInt8(ascii: "\\") { index += 1 }
                index += 1
            }
            index += 1  // closing quote
            if index < line.endIndex, line[index] == UInt8(ascii: ",") { index += 1 }
            labels[name, default: 0] += index - start
        }
    }
    func share(_ count: Int) -> String { String(format: "%5.1f %%", 100 * Double(count) / Double(max(1, bytes))) }
    for family in familyOrder.sorted(by: { families[$0, default: 0] > families[$1, default: 0] }) {
        let count = families[family, default: 0]
        print(
            String(
                format: "family %-52@ %10d bytes %@ %7.1f a host", family as NSString, count, share(count),
                Double(count) / Double(max(1, hostCount))))
    }
    for (name, count) in labels.sorted(by: { $0.value > $1.value }) {
        print(
            String(
                format: "label  %-52@ %10d bytes %@ %7.1f a host", name as NSString, count, share(count),
                Double(count) / Double(max(1, hostCount))))
    }
}
