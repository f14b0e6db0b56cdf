import Foundation
import PinwatchCore
import PinwatchLocalWorld
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
    /// The host pinned to one intermediate of a pool, moved to a sibling later.
    static let poolHost = "shop.demo"
    /// The demo catalogue's pool family, as `catalogue` lists it.
    static let poolFamily = "demo-pool"

    let config: Config
    /// Proxy variables that route only `api.demo` through the local proxy,
    /// by the same `no_proxy` rules a user's environment goes through.
    let environment: [String: String]

    private let world: LocalWorld
    private let paymentsServer: LocalTLSServer
    private let shopServer: LocalTLSServer
    /// The five intermediates the pool family issues from, in turn.
    private let pool: [CertificateAuthority]

    init(now: Date = Date()) throws {
        let world = try LocalWorld(name: "Demo", organization: "Demo Trust Services")
        self.world = world
        let issuing = world.issuing
        let rotated = try world.root.issueIntermediate(commonName: "Demo Issuing CA 2", organization: "Demo Trust Services")
        // A CA that issues from a pool of five intermediates, as Let's
        // Encrypt does from R10–R14: its own root, so no other demo host
        // belongs to the family.
        let poolRoot = try CertificateAuthority.makeRoot(commonName: "Demo Pool Root", organization: "Demo Pool CA")
        let pool = try (1...5).map { try poolRoot.issueIntermediate(commonName: "Demo Pool CA \($0)", organization: "Demo Pool CA") }
        self.pool = pool
        let trust = TrustSource.pem(world.trustPEM + poolRoot.certificate.pem)
        var hosts: [HostConfig] = []

        func serve(_ name: String, by issuer: CertificateAuthority, validity: ValidityWindow = .lasting(days: 60)) throws -> (
            LocalTLSServer, IssuedCertificate
        ) {
            try world.serveLeaf(name, by: issuer, validity: validity)
        }
        func pin(_ certificate: X509Certificate) -> Pin {
            LocalWorld.spkiPin(certificate)
        }
        func host(_ name: String, port: Int, ca: [Pin] = [], leaf: [Pin] = []) -> HostConfig {
            HostConfig(
                host: name, port: port, connectAddress: "127.0.0.1", trust: trust, pins: PinSet(ca: ca, leaf: leaf), line: hosts.count + 1)
        }
        let retiredLeafKey = try PrivateKey.ecdsa(.p256)
        let retiredLeafPin = Pin(
            kind: .spki, digest: retiredLeafKey.subjectPublicKeyInfoSHA256, text: PinText.sha256(retiredLeafKey.subjectPublicKeyInfoSHA256))
        let root = world.root

        // ok, CA and leaf tiers both match; later its intermediate rotates.
        let (payments, paymentsLeaf) = try serve(Self.rotatingHost, by: issuing)
        paymentsServer = payments
        hosts.append(host(Self.rotatingHost, port: payments.port, ca: [pin(issuing.certificate)], leaf: [pin(paymentsLeaf.certificate)]))

        // ok through the CA tier only: the leaf was renewed with a new key.
        let (cdn, _) = try serve("cdn.demo", by: issuing)
        hosts.append(host("cdn.demo", port: cdn.port, ca: [pin(root.certificate)], leaf: [retiredLeafPin]))

        // leaf_only: the issuing CA rotated; only the leaf pin still matches.
        let (auth, authLeaf) = try serve("auth.demo", by: rotated)
        hosts.append(host("auth.demo", port: auth.port, ca: [pin(issuing.certificate)], leaf: [pin(authLeaf.certificate)]))

        // blocked: moved to another CA; trusted, but no pin matches.
        let (legacy, _) = try serve("legacy.demo", by: world.otherIssuing)
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
        let stagingServer = world.keep(try LocalTLSServer(identity: Identity(leaf: staging)))
        hosts.append(host("staging.demo", port: stagingServer.port, leaf: [pin(staging.certificate)]))

        // Inventory mode: no pins, the chain is shown to copy them from.
        let (inventory, _) = try serve("inventory.demo", by: issuing)
        hosts.append(host("inventory.demo", port: inventory.port))

        // Accepts TCP and never answers: costs exactly its deadline.
        let blackHole = world.keep(try BlackHoleServer())
        hosts.append(host("gone.demo", port: blackHole.port, ca: [pin(root.certificate)]))

        // Reached through a local CONNECT proxy: ok, with the proxy alert.
        let (api, _) = try serve("api.demo", by: issuing)
        let proxy = world.keep(try ConnectProxyServer())
        hosts.append(host("api.demo", port: api.port, ca: [pin(root.certificate)]))

        // ok today, pinned only to the pool intermediate it is served from:
        // the next renewal may come from any of the other four.
        let (shop, _) = try serve(Self.poolHost, by: pool[0])
        shopServer = shop
        hosts.append(host(Self.poolHost, port: shop.port, ca: [pin(pool[0].certificate)]))

        var config = Config(
            path: "built-in demo", interval: 5, timeout: 2, concurrency: 16, warnDays: 21, criticalDays: 7,
            theme: "default", trust: trust, proxy: .auto, hosts: hosts)
        config.catalogue = Catalogue(families: [Self.poolFamily(root: poolRoot, pool: pool)])
        self.config = config
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
        try world.rotateIntermediate(of: paymentsServer, hostName: Self.rotatingHost, newIssuerName: "Demo Issuing CA 3")
    }

    /// Moves `shop.demo` to a sibling intermediate of its pool, as the CA
    /// does at a renewal: a new leaf under Demo Pool CA 3. Trusted as
    /// before, but its only pin (Demo Pool CA 1) no longer matches.
    func rotateWithinPool() throws {
        let sibling = pool[2]
        let leaf = try sibling.issueLeaf(commonName: Self.poolHost, dnsNames: [Self.poolHost], validity: .lasting(days: 60))
        try shopServer.replaceIdentity(Identity(leaf: leaf, intermediates: [sibling.certificate]))
    }

    /// The demo catalogue's entry: the pool's root and its five active
    /// intermediates, declared as a user would under `catalogue:`.
    private static func poolFamily(root: CertificateAuthority, pool: [CertificateAuthority]) -> CatalogueFamily {
        let certificate = { (name: String, authority: CertificateAuthority) in
            CatalogueCertificate(name: name, facts: authority.certificate.facts, file: "built-in demo")
        }
        let rootCertificate = certificate("Demo Pool Root", root)
        return CatalogueFamily(
            name: poolFamily, displayName: "Demo Pool CA", roots: [rootCertificate],
            intermediates: pool.enumerated().map { index, authority in
                CatalogueIntermediate(
                    certificate: certificate("Demo Pool CA \(index + 1)", authority), state: .active, root: rootCertificate.name)
            }, origin: "config")
    }

    func stop() {
        world.stop()
    }
}
