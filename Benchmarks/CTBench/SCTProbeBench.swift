import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchSystem

/// `pinwatch-ct-bench probe [PROBES]`: what checking a leaf's SCTs adds to
/// a probe. One engine, as `watch` and `serve` keep one, probes the same
/// local server PROBES times (default 200) one after another: its leaf
/// carries SCTs of three logs, embedded as a public CA embeds them. Half
/// the probes check them (`ct:` logs configured), half do not,
/// alternating, so both figures come from the same run; every checked
/// probe must find three valid SCTs. Prints CPU µs per probe (user +
/// system, this process, the local server's side of the handshake
/// included) for each half. Under callgrind the probes' own thread
/// counts the client's side alone (Benchmarks/README.md, "SCT checks per
/// probe").
enum SCTProbeBench {
    static func run(probes: Int) throws {
        let root = try CertificateAuthority.makeRoot(commonName: "SCT Bench Root")
        let issuer = try root.issueIntermediate(commonName: "SCT Bench Issuing CA")
        let logs = try ["Operator A", "Operator B", "Operator C"].map { try LocalSCTLog(operatorName: $0) }
        let plain = try issuer.issueLeaf(commonName: "api.bench.test", dnsNames: ["api.bench.test"])
        let leaf = try issuer.embeddingSCTs(in: plain, by: logs)
        let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [issuer.certificate]))
        let target = ProbeTarget(
            host: "api.bench.test", port: server.port, serverName: "api.bench.test", connectAddress: server.host,
            trust: .pem(root.certificate.pem), timeout: 30)
        var checking = target
        checking.sctLogs = SCTLogKeys(logs.map(\.sctLogKey))
        let engine = ProbeEngine(concurrency: 1)
        var cpu = (checked: 0.0, plain: 0.0)
        for index in 0..<max(2, probes) {
            let checks = index % 2 == 0
            let start = ProcessCPUTime.seconds()
            guard let result = engine.run([checks ? checking : target]).first, result.failure == nil, result.trusted else {
                FileHandle.standardError.write(Data("probe \(index) failed\n".utf8))
                exit(1)
            }
            let spent = ProcessCPUTime.seconds() - start
            if checks {
                guard let scts = result.scts, scts.count == 3, scts.allSatisfy({ $0.check == .valid }) else {
                    FileHandle.standardError.write(Data("probe \(index): not three valid SCTs\n".utf8))
                    exit(1)
                }
                cpu.checked += spent
            } else {
                cpu.plain += spent
            }
        }
        let half = Double(max(2, probes) / 2)
        print(
            String(
                format: "probes: %d, CPU µs per probe: %.0f checking 3 embedded SCTs, %.0f not checking", max(2, probes),
                cpu.checked * 1e6 / half, cpu.plain * 1e6 / half))
    }
}
