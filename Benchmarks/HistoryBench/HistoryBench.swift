import Foundation
import PinwatchCore
import PinwatchHistory

/// `pinwatch-history-bench [HOSTS] [DAYS] [FOLDER]`: the history store's
/// figures (Benchmarks/history.sh prints them).
///
/// 1. Store work for a cycle of 1,000 unchanged hosts (one transaction),
///    median of 30 cycles, beside the cost of making those 1,000 verdicts
///    in the same run (the baseline).
/// 2. HOSTS hosts × DAYS days of daily leaf renewals with a new key each
///    time (the worst case): file size, then `history HOST` time.
@main
enum HistoryBench {
    static let day: TimeInterval = 86_400

    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst().map { $0 }
        let hosts = arguments.first.flatMap(Int.init) ?? 1000
        let days = arguments.dropFirst().first.flatMap(Int.init) ?? 400
        let folder = arguments.count > 2 ? arguments[2] : NSTemporaryDirectory() + "pinwatch-history-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if arguments.count <= 2 { try? FileManager.default.removeItem(atPath: folder) } }

        try unchangedCycle(folder: folder)
        try growth(hosts: hosts, days: days, folder: folder)
    }

    static func unchangedCycle(folder: String) throws {
        let path = folder + "/cycle.sqlite"
        let store = try HistoryStore(path: path, mode: .writer)
        let start = Date()
        let configs = (0..<1000).map { HostConfig(host: "h\($0).bench.test", pins: PinSet(ca: [pin(7)], leaf: [])) }
        var verdictTimes: [Double] = []
        var storeTimes: [Double] = []
        for cycle in 0..<31 {
            let now = start.addingTimeInterval(Double(cycle) * 60)
            let began = DispatchTime.now().uptimeNanoseconds
            let reports = configs.enumerated().map { index, host in
                Verdict.report(for: host, result: result(host: index, renewal: 0, at: start), now: now, warnDays: 21, criticalDays: 7)
            }
            let verdicts = DispatchTime.now().uptimeNanoseconds
            _ = store.record(reports, at: now)
            let recorded = DispatchTime.now().uptimeNanoseconds
            // The first cycle inserts every host; the rest are the steady state.
            if cycle > 0 {
                verdictTimes.append(Double(verdicts - began) / 1e6)
                storeTimes.append(Double(recorded - verdicts) / 1e6)
            }
        }
        let storeMedian = median(storeTimes)
        let verdict = median(verdictTimes)
        print(
            String(
                format: "unchanged cycle, 1000 hosts: store %.2f ms (median of %d), verdicts %.2f ms; store/verdicts = %.2f",
                storeMedian, storeTimes.count, verdict, storeMedian / verdict))
    }

    static func growth(hosts: Int, days: Int, folder: String) throws {
        let path = folder + "/growth.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let start = Date().addingTimeInterval(-Double(days) * day)
        let configs = (0..<hosts).map { HostConfig(host: "h\($0).bench.test", pins: PinSet(ca: [pin(7)], leaf: [])) }
        let began = Date()
        do {
            let store = try HistoryStore(path: path, mode: .writer, historyDays: days + 1, now: start)
            for renewal in 0..<days {
                let now = start.addingTimeInterval(Double(renewal) * day)
                let reports = configs.enumerated().map { index, host in
                    Verdict.report(
                        for: host, result: result(host: index, renewal: renewal, at: now), now: now, warnDays: 21, criticalDays: 7)
                }
                _ = store.record(reports, at: now)
                if store.writeHealth.failing { throw NSError(domain: store.writeHealth.lastFailure ?? "write failed", code: 1) }
                if renewal % 50 == 49 {
                    FileHandle.standardError.write(Data("  \(renewal + 1)/\(days) days recorded\n".utf8))
                }
            }
        }
        let written = Date().timeIntervalSince(began)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let changes = hosts * days
        print(
            String(
                format:
                    "%d hosts × %d days of daily leaf renewals (new key each): %.1f MB on disk, %.0f bytes per renewal, written in %.0f s",
                hosts, days, Double(bytes) / 1e6, Double(bytes) / Double(changes), written))

        let reader = try HistoryStore(path: path, mode: .reader)
        var times: [Double] = []
        var entries = 0
        for round in 0..<20 {
            let began = DispatchTime.now().uptimeNanoseconds
            let timelines = try reader.timelines(host: "h\((round * 7919) % hosts).bench.test", port: nil)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
            entries = timelines.first?.entries.count ?? 0
        }
        print(String(format: "history HOST (%d entries): %.1f ms (median of 20)", entries, median(times)))
    }

    static func pin(_ key: UInt8) -> Pin {
        Pin(kind: .spki, digest: [UInt8](repeating: key, count: 32), text: PinText.sha256([UInt8](repeating: key, count: 32)))
    }

    /// Host `host`'s chain after `renewal` renewals: a leaf with its own key
    /// and certificate per renewal, under one intermediate and root.
    static func result(host: Int, renewal: Int, at date: Date) -> ProbeResult {
        func digest(_ seed: Int, _ kind: UInt8) -> [UInt8] {
            var bytes = [UInt8](repeating: kind, count: 32)
            withUnsafeBytes(of: UInt64(seed).littleEndian) { for (index, byte) in $0.enumerated() { bytes[index] = byte } }
            return bytes
        }
        let seed = host * 100_000 + renewal
        let leaf = CertificateFacts(
            subject: "CN=h\(host).bench.test", issuer: "CN=Bench Issuing CA,O=Bench", notBefore: date,
            notAfter: date.addingTimeInterval(90 * day), keyDescription: "ECDSA P-256", spkiSHA256: digest(seed, 1),
            keySHA256: digest(seed, 2), certSHA256: digest(seed, 3))
        let intermediate = CertificateFacts(
            subject: "CN=Bench Issuing CA,O=Bench", issuer: "CN=Bench Root,O=Bench", notBefore: date.addingTimeInterval(-900 * day),
            notAfter: date.addingTimeInterval(900 * day), keyDescription: "ECDSA P-256", spkiSHA256: digest(1, 4), keySHA256: digest(1, 5),
            certSHA256: digest(1, 6))
        let root = CertificateFacts(
            subject: "CN=Bench Root,O=Bench", issuer: "CN=Bench Root,O=Bench", notBefore: date.addingTimeInterval(-900 * day),
            notAfter: date.addingTimeInterval(5000 * day), keyDescription: "ECDSA P-256", spkiSHA256: [UInt8](repeating: 7, count: 32),
            keySHA256: digest(2, 8), certSHA256: digest(2, 9), isCA: true, isSelfSigned: true)
        return ProbeResult(
            address: "127.0.0.1",
            chain: [
                ChainCertificate(facts: leaf, fromServer: true), ChainCertificate(facts: intermediate, fromServer: true),
                ChainCertificate(facts: root, fromServer: false),
            ], sentCount: 2, trusted: true, finishedAt: date)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
