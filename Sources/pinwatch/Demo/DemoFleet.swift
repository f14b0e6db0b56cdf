import Foundation
import PinwatchCore
import PinwatchProbe

/// The demo's world: a generated PKI, local TLS servers that show every
/// status pinwatch knows, and the configuration that watches them.
///
/// Everything lives in this process: keys and roots in memory (the trust
/// store is `.pem` text, not a file), servers on 127.0.0.1 ephemeral ports,
/// so the demo leaves nothing behind when the process ends.
final class DemoFleet {
    /// The healthy host whose intermediate the demo rotates.
    static let rotatingHost = "payments.demo"

    let config: Config
    /// Proxy variables that route only `api.demo` through the local proxy,
    /// by the same `no_proxy` rules a user's environment goes through.
    let environment: [String: String]

    private let root: CertificateAuthority
    private let paymentsKey: PrivateKey
    private let paymentsServer: LocalTLSServer
    /// Kept alive for the life of the demo; stopped in `stop()`.
    private var peers: [any LocalServer] = []

    init(now: Date = Date()) throws {
        let root = try CertificateAuthority.makeRoot(commonName: "Demo Root R1", organization: "Demo Trust Services")
        let issuing = try root.issueIntermediate(commonName: "Demo Issuing CA A1", organization: "Demo Trust Services")
        let rotated = try root.issueIntermediate(commonName: "Demo Issuing CA A2", organization: "Demo Trust Services")
        let otherRoot = try CertificateAuthority.makeRoot(commonName: "Other Root X", organization: "Other CA Inc")
        let otherIssuing = try otherRoot.issueIntermediate(commonName: "Other Issuing CA 7", organization: "Other CA Inc")
        self.root = root

        var hosts: [HostConfig] = []
        var peers: [any LocalServer] = []
        let trust = TrustSource.pem(root.certificate.pem + otherRoot.certificate.pem)

        func serve(_ name: String, by issuer: CertificateAuthority, key: PrivateKey? = nil, validity: ValidityWindow = .lasting(days: 60)) throws -> (LocalTLSServer, IssuedCertificate) {
            let leaf = try issuer.issueLeaf(commonName: name, dnsNames: [name], key: key, validity: validity)
            let server = try LocalTLSServer(identity: Identity(leaf: leaf, intermediates: [issuer.certificate]))
            peers.append(server)
            return (server, leaf)
        }
        func pin(_ certificate: X509Certificate) -> Pin {
            Self.spkiPin(certificate.facts)
        }
        func host(_ name: String, port: Int, ca: [Pin] = [], leaf: [Pin] = [], trust hostTrust: TrustSource = trust) -> HostConfig {
            HostConfig(host: name, port: port, connectAddress: "127.0.0.1", trust: hostTrust, pins: PinSet(ca: ca, leaf: leaf), line: hosts.count + 1)
        }
        let retiredLeafKey = try PrivateKey.ecdsa(.p256)
        let retiredLeafPin = Self.spkiPin(digest: retiredLeafKey.subjectPublicKeyInfoSHA256)

        // ok, CA and leaf tiers both match; later its intermediate rotates.
        paymentsKey = try PrivateKey.ecdsa(.p256)
        let (payments, paymentsLeaf) = try serve(Self.rotatingHost, by: issuing, key: paymentsKey)
        paymentsServer = payments
        hosts.append(host(Self.rotatingHost, port: payments.port, ca: [pin(issuing.certificate)], leaf: [pin(paymentsLeaf.certificate)]))

        // ok through the CA tier only: the leaf was renewed with a new key.
        let (cdn, _) = try serve("cdn.demo", by: issuing)
        hosts.append(host("cdn.demo", port: cdn.port, ca: [pin(root.certificate)], leaf: [retiredLeafPin]))

        // leaf_only: the issuing CA rotated; only the leaf pin still matches.
        let (auth, authLeaf) = try serve("auth.demo", by: rotated)
        hosts.append(host("auth.demo", port: auth.port, ca: [pin(issuing.certificate)], leaf: [pin(authLeaf.certificate)]))

        // blocked: moved to another CA; trusted, but no pin matches.
        let (legacy, _) = try serve("legacy.demo", by: otherIssuing)
        hosts.append(host("legacy.demo", port: legacy.port, ca: [pin(root.certificate)], leaf: [retiredLeafPin]))

        // ok, but the leaf expires in 3 days: critical_expiry.
        let (mail, _) = try serve("mail.demo", by: issuing, validity: .ending(inDays: 3.5, issuedDaysAgo: 86, now: now))
        hosts.append(host("mail.demo", port: mail.port, ca: [pin(root.certificate)]))

        // An expired leaf: untrusted, blocked, expired.
        let (www, _) = try serve("www.demo", by: issuing, validity: .ending(inDays: -2.5, issuedDaysAgo: 92, now: now))
        hosts.append(host("www.demo", port: www.port, ca: [pin(root.certificate)]))

        // A self-signed staging host whose own key is pinned: a pin matches,
        // but the chain is untrusted, so a pinned client still refuses.
        let staging = try SelfSignedLeaf.make(commonName: "staging.demo", dnsNames: ["staging.demo"])
        let stagingServer = try LocalTLSServer(identity: Identity(leaf: staging))
        peers.append(stagingServer)
        hosts.append(host("staging.demo", port: stagingServer.port, leaf: [pin(staging.certificate)]))

        // Inventory mode: no pins, the chain is shown to copy them from.
        let (inventory, _) = try serve("inventory.demo", by: issuing)
        hosts.append(host("inventory.demo", port: inventory.port))

        // Accepts TCP and never answers: costs exactly its deadline.
        let blackHole = try BlackHoleServer()
        peers.append(blackHole)
        hosts.append(host("gone.demo", port: blackHole.port, ca: [pin(root.certificate)]))

        // Reached through a local CONNECT proxy: ok, with the proxy alert.
        let (api, _) = try serve("api.demo", by: issuing)
        let proxy = try ConnectProxyServer()
        peers.append(proxy)
        hosts.append(host("api.demo", port: api.port, ca: [pin(root.certificate)]))

        self.peers = peers
        config = Config(
            path: "built-in demo", interval: 5, timeout: 2, concurrency: 16, warnDays: 21, criticalDays: 7,
            theme: "default", trust: trust, proxy: .auto, hosts: hosts)
        let direct = hosts.map(\.host).filter { $0 != "api.demo" }
        environment = [
            "https_proxy": "http://127.0.0.1:\(proxy.port)",
            "no_proxy": direct.joined(separator: ","),
        ]
    }

    /// Rotates the intermediate of `payments.demo`: a new issuing CA key under
    /// the same root, the leaf re-issued with the same key. Trusted as
    /// before, the leaf pin still matches, the CA pin no longer does.
    func rotateIntermediate() throws {
        let next = try root.issueIntermediate(commonName: "Demo Issuing CA A3", organization: "Demo Trust Services")
        let leaf = try next.issueLeaf(commonName: Self.rotatingHost, dnsNames: [Self.rotatingHost], key: paymentsKey, validity: .lasting(days: 60))
        try paymentsServer.replaceIdentity(Identity(leaf: leaf, intermediates: [next.certificate]))
    }

    func stop() {
        peers.forEach { $0.stop() }
        peers.removeAll()
    }

    private static func spkiPin(_ facts: CertificateFacts) -> Pin {
        Pin(kind: .spki, digest: facts.spkiSHA256, text: PinText.sha256(facts.spkiSHA256))
    }

    private static func spkiPin(digest: [UInt8]) -> Pin {
        Pin(kind: .spki, digest: digest, text: PinText.sha256(digest))
    }
}
