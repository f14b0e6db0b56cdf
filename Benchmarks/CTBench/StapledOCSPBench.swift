import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchSystem
import PinwatchTestSupport

/// `pinwatch-ct-bench ocsp [PROBES]`: what reading and verifying a stapled
/// OCSP response adds to a probe. One engine probes `openssl s_server`,
/// which staples a good response signed by the leaf's issuer, PROBES times
/// (default 200) one after another: half with revocation checked, half
/// without, alternating, so both figures come from the same run; every
/// checked probe must find the response good. The server is another
/// process: the CPU per probe printed (user + system) is the client's
/// alone (Benchmarks/README.md, "SCT checks per probe").
enum StapledOCSPBench {
    /// Thrown, not `exit`: the deferred stop of s_server must run.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func run(probes: Int) throws {
        let root = try CertificateAuthority.makeRoot(commonName: "OCSP Bench Root")
        let issuer = try root.issueIntermediate(commonName: "OCSP Bench Issuing CA")
        let leaf = try issuer.issueLeaf(commonName: "api.bench.test", dnsNames: ["api.bench.test"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-ocsp-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        for (name, text) in ["leaf.pem": leaf.certificate.pem, "leaf.key": try leaf.key.pem, "chain.pem": issuer.certificate.pem] {
            try text.write(toFile: path(name), atomically: true, encoding: .utf8)
        }
        try Data(try issuer.stapledOCSPResponse(for: leaf.certificate, carrying: [])).write(to: URL(fileURLWithPath: path("staple.der")))
        let port = try LocalPorts.closedPort()
        let server = try ServerProcess(
            [
                "/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", path("leaf.pem"), "-key", path("leaf.key"),
                "-cert_chain", path("chain.pem"), "-status_file", path("staple.der"), "-www", "-quiet",
            ], output: path("s_server.log"))
        defer { server.stop() }
        guard server.wait(upTo: 10, until: { ServerProcess.isListening(port: port) }) else {
            throw Failure(description: "s_server did not listen on \(port)")
        }
        var checking = ProbeTarget(
            host: "api.bench.test", port: port, serverName: "api.bench.test", connectAddress: "127.0.0.1",
            trust: .pem(root.certificate.pem), timeout: 30)
        var plain = checking
        checking.checksRevocation = true
        plain.checksRevocation = false
        let engine = ProbeEngine(concurrency: 1)
        let count = max(2, probes)
        var cpu = (checked: 0.0, plain: 0.0)
        for index in 0..<count {
            let checks = index % 2 == 0
            let start = ProcessCPUTime.seconds()
            guard let result = engine.run([checks ? checking : plain]).first, result.failure == nil, result.trusted else {
                throw Failure(description: "probe \(index) failed")
            }
            let spent = ProcessCPUTime.seconds() - start
            if checks {
                guard result.revocation == [RevocationFinding(level: 0, source: .stapledOCSP, outcome: .good)] else {
                    throw Failure(description: "probe \(index): the staple was not found good: \(String(describing: result.revocation))")
                }
                cpu.checked += spent
            } else {
                cpu.plain += spent
            }
        }
        let half = Double(count / 2)
        print(
            String(
                format: "probes: %d, CPU µs per probe: %.0f verifying the stapled OCSP response, %.0f not", count,
                cpu.checked * 1e6 / half, cpu.plain * 1e6 / half))
    }
}
