import Foundation
import PinwatchCT
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport

/// `pinwatch-ct-bench [ENTRIES]` (and `probe`, SCTProbeBench; `ocsp`, StapledOCSPBench): entries verified and matched per second
/// when following the local log from its first entry, by pinwatch's
/// follower over RFC 6962 and over static-ct-api's data tiles (gzipped, as
/// the log sends them, and plain), and by Debian's certspotter reading the
/// same log over RFC 6962 in the same run (Benchmarks/ct.sh prints them; Benchmarks/README.md keeps
/// the figure). Every other entry is a precertificate, as in a public log.
/// One entry in a thousand, and the last, is for the watched name, so
/// certspotter's script runs rarely; the last one tells when it has read
/// everything.
@main
enum CTBench {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "probe" {
            return try SCTProbeBench.run(probes: arguments.dropFirst().first.flatMap(Int.init) ?? 200)
        }
        if arguments.first == "ocsp" {
            return try StapledOCSPBench.run(probes: arguments.dropFirst().first.flatMap(Int.init) ?? 200)
        }
        let count = arguments.first.flatMap(Int.init) ?? 20_000
        let root = try CertificateAuthority.makeRoot(commonName: "CT Bench Root")
        let intermediate = try root.issueIntermediate(commonName: "CT Bench Issuing CA")
        let log = try LocalCTLog(roots: [root.certificate], maximumBatch: 1_000)
        defer { log.stop() }
        // One key for every leaf: making keys is not what is measured.
        let key = try PrivateKey.ecdsa(.p256)
        for index in 0..<count {
            let watched = index % 1_000 == 0 || index == count - 1
            let name = watched ? "w\(index).api.bench.test" : "h\(index).other.bench.test"
            let chain = [intermediate.certificate, root.certificate]
            if index % 2 == 1 {
                let precertificate = try intermediate.issueLeaf(commonName: name, dnsNames: [name], key: key, precertificate: true)
                try log.add(precertificate: precertificate.certificate, issuer: intermediate.certificate, chain: chain)
            } else {
                let leaf = try intermediate.issueLeaf(commonName: name, dnsNames: [name], key: key)
                log.add(certificate: leaf.certificate, chain: chain)
            }
        }
        try log.publish()
        let expected = (0..<count).filter { $0 % 1_000 == 0 || $0 == count - 1 }.map(UInt64.init)
        print("log: \(count) entries, \(expected.count) for the watched name, served by LocalCTLog in batches of 1000")

        let pinwatch = try followWithPinwatch(log, expected: expected)
        print(String(format: "pinwatch: %.2f s, %.0f entries/s verified and matched", pinwatch, Double(count) / pinwatch))
        let tiled = try followWithPinwatch(log, expected: expected, tiled: true)
        print(String(format: "pinwatch (data tiles, gzipped): %.2f s, %.0f entries/s", tiled, Double(count) / tiled))
        log.gzipsTiles = false
        let plain = try followWithPinwatch(log, expected: expected, tiled: true)
        print(String(format: "pinwatch (data tiles, plain): %.2f s, %.0f entries/s", plain, Double(count) / plain))
        let certspotter = try followWithCertspotter(log, last: UInt64(count - 1))
        print(String(format: "certspotter: %.2f s, %.0f entries/s", certspotter, Double(count) / certspotter))
        print(String(format: "pinwatch / certspotter speed: %.2f", certspotter / pinwatch))
    }

    static func followWithPinwatch(_ log: LocalCTLog, expected: [UInt64], tiled: Bool = false) throws -> Double {
        let list = try CTLogList(json: try log.logList(tiled: tiled))
        var limits = RFC6962Client.Limits()
        limits.batchSize = 1_000
        let client: any CTLogReader
        switch list.logs.first?.interface {
        case .rfc6962(let url): client = RFC6962Client(baseURL: url, limits: limits)
        case .staticCTAPI(let submission, let monitoring):
            client = StaticCTClient(log: list.logs[0], submissionURL: submission, monitoringURL: monitoring, limits: limits)
        case nil: throw CTFormatError("the local list names no log")
        }
        let follower = CTLogFollower(log: list.logs[0], client: client, position: .beginning)
        let watched = CTWatchedNames([".api.bench.test"])
        let started = DispatchTime.now().uptimeNanoseconds
        let advance = try follower.advance(keeping: watched.matches)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        guard advance.entries.map(\.index) == expected else {
            throw CTFormatError("pinwatch matched \(advance.entries.count) entries, not \(expected.count)")
        }
        return seconds
    }

    /// From certspotter's start to its script's report of the last entry.
    static func followWithCertspotter(_ log: LocalCTLog, last: UInt64) throws -> Double {
        let directory = NSTemporaryDirectory() + "pinwatch-ct-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(try log.logList()).write(to: URL(fileURLWithPath: directory + "/logs.json"))
        try ".api.bench.test\n".write(toFile: directory + "/watchlist", atomically: true, encoding: .utf8)
        let discoveries = directory + "/discoveries"
        try "#!/bin/sh\n[ \"$EVENT\" = discovered_cert ] && echo \"$ENTRY_INDEX\" >> '\(discoveries)'\nexit 0\n".write(
            toFile: directory + "/script", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory + "/script")
        let started = DispatchTime.now().uptimeNanoseconds
        let process = try ServerProcess(
            [
                "/usr/bin/env", "CERTSPOTTER_CONFIG_DIR=\(directory)", "/usr/bin/certspotter",
                "-logs", directory + "/logs.json", "-watchlist", directory + "/watchlist", "-state_dir", directory + "/state",
                "-script", directory + "/script", "-no_save",
            ], output: directory + "/certspotter.out")
        defer { process.stop() }
        let reported = process.wait(upTo: 600) {
            let text = (try? String(contentsOfFile: discoveries, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").contains { UInt64($0) == last }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        guard reported else {
            let output = (try? String(contentsOfFile: directory + "/certspotter.out", encoding: .utf8)) ?? ""
            throw CTFormatError("certspotter did not report entry \(last) within 600 s: \(output)")
        }
        return seconds
    }
}
