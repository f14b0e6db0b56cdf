import Foundation

@testable import PinwatchCore

/// Certificates, pins and results built from small integers, so tests read
/// as "key 7 rotated to key 8" instead of walls of base64.
enum Fixtures {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400

    static func digest(_ seed: UInt8) -> [UInt8] { [UInt8](repeating: seed, count: 32) }

    /// A certificate whose SPKI digest is `digest(key)`; key and cert digests differ from it.
    static func certificate(
        _ subject: String, key: UInt8, daysLeft: Double = 60, fromServer: Bool = true, issuer: String = "CN=Issuer"
    ) -> ChainCertificate {
        let facts = CertificateFacts(
            subject: subject, issuer: issuer, notBefore: now.addingTimeInterval(-30 * day),
            notAfter: now.addingTimeInterval(daysLeft * day), keyDescription: "ECDSA P-256",
            spkiSHA256: digest(key), keySHA256: digest(key &+ 100), certSHA256: digest(key &+ 200))
        return ChainCertificate(facts: facts, fromServer: fromServer)
    }

    static func spkiPin(_ key: UInt8) -> Pin {
        Pin(kind: .spki, digest: digest(key), text: PinText.sha256(digest(key)))
    }

    /// leaf (key 1), intermediate (key 2), root (key 3, from the trust store).
    static func chain(leafKey: UInt8 = 1, intermediateKey: UInt8 = 2, rootKey: UInt8 = 3, leafDaysLeft: Double = 60) -> [ChainCertificate] {
        [
            certificate("CN=api.example.com", key: leafKey, daysLeft: leafDaysLeft, issuer: "CN=R11"),
            certificate("CN=R11", key: intermediateKey, daysLeft: 900, issuer: "CN=Root"),
            certificate("CN=Root", key: rootKey, daysLeft: 5000, fromServer: false, issuer: "CN=Root"),
        ]
    }

    static func host(ca: [Pin] = [], leaf: [Pin] = []) -> HostConfig {
        HostConfig(host: "api.example.com", pins: PinSet(ca: ca, leaf: leaf))
    }

    static func result(chain: [ChainCertificate], trusted: Bool = true, proxy: ProxyRoute? = nil) -> ProbeResult {
        ProbeResult(
            address: "127.0.0.1", chain: chain, sentCount: chain.filter(\.fromServer).count, trusted: trusted,
            trustError: trusted ? nil : "unable to get local issuer certificate", elapsed: 0.0123, proxy: proxy,
            finishedAt: now)
    }

    static func report(_ host: HostConfig, _ result: ProbeResult) -> HostReport {
        Verdict.report(for: host, result: result, now: now, warnDays: 21, criticalDays: 7)
    }
}
