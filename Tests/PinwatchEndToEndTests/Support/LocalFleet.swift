import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport

/// A throw-away world for one end-to-end test: a generated PKI, local
/// servers for each scenario, and the `pinwatch.yaml` + trust bundle that
/// point the real binary at them, all in a temporary folder.
///
/// Hosts get `.test` names dialled through `connect: 127.0.0.1`, so
/// hostname verification uses the name while every socket stays local.
/// `stop()` (call it from `tearDown`) stops the servers and removes the folder.
final class LocalFleet {
    /// One `hosts:` entry as it will be written.
    struct Host {
        var name: String
        var port: Int
        var sni: String? = nil
        var ca: [String] = []
        var leaf: [String] = []
        var pinset: String? = nil
        /// The certificate the server presents first, when there is one.
        var leafCertificate: X509Certificate? = nil
        /// Further keys of the entry (`labels: {team: x}`), written as given
        /// under its other keys.
        var entryLines: [String] = []
    }

    let directory: URL
    /// The PKI and the servers; both roots are written to `trust.pem`.
    let world: LocalWorld
    private(set) var hosts: [Host] = []

    var root: CertificateAuthority { world.root }
    var issuing: CertificateAuthority { world.issuing }
    /// A second root the trust store also holds, for "moved to another CA".
    var otherIssuing: CertificateAuthority { world.otherIssuing }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pinwatch-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        world = try LocalWorld(name: "E2E", organization: "E2E Trust")
        try world.trustPEM.write(to: trustURL, atomically: true, encoding: .utf8)
    }

    var trustURL: URL { directory.appendingPathComponent("trust.pem") }
    var configURL: URL { directory.appendingPathComponent("pinwatch.yaml") }

    func stop() {
        world.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Pins

    static func pin(_ certificate: X509Certificate) -> String {
        LocalWorld.spkiPin(certificate).text
    }

    /// A well-formed pin that matches nothing: the hash of a key no server uses.
    static func unrelatedPin() throws -> String {
        PinText.sha256(try PrivateKey.ecdsa(.p256).subjectPublicKeyInfoSHA256)
    }

    // MARK: Servers

    @discardableResult
    func serveLeaf(
        _ name: String, by issuer: CertificateAuthority? = nil, commonName: String? = nil,
        validity: ValidityWindow = .lasting(days: 60), paddingBytes: Int = 0
    ) throws -> (server: LocalTLSServer, leaf: IssuedCertificate) {
        try world.serveLeaf(name, by: issuer, commonName: commonName, validity: validity, paddingBytes: paddingBytes)
    }

    @discardableResult
    func keep<Server: LocalServer>(_ server: Server) -> Server {
        world.keep(server)
    }

    // MARK: Scenarios (DESIGN §5)

    /// ok: trusted, the CA tier pins the root (which the server does not send).
    @discardableResult
    func addOK(_ name: String, commonName: String? = nil) throws -> Host {
        let (server, leaf) = try serveLeaf(name, commonName: commonName)
        return add(Host(name: name, port: server.port, ca: [Self.pin(root.certificate)], leafCertificate: leaf.certificate))
    }

    /// leaf_only: the CA pin is stale, only the leaf pin matches.
    @discardableResult
    func addLeafOnly(_ name: String) throws -> Host {
        let (server, leaf) = try serveLeaf(name)
        return add(
            Host(
                name: name, port: server.port, ca: [try Self.unrelatedPin()], leaf: [Self.pin(leaf.certificate)],
                leafCertificate: leaf.certificate))
    }

    /// blocked: trusted (another CA in the store), but no pin matches.
    @discardableResult
    func addBlockedNoMatch(_ name: String) throws -> Host {
        let (server, leaf) = try serveLeaf(name, by: otherIssuing)
        return add(
            Host(
                name: name, port: server.port, ca: [Self.pin(root.certificate)], leaf: [try Self.unrelatedPin()],
                leafCertificate: leaf.certificate))
    }

    /// blocked: a self-signed leaf whose own key is pinned, so a pin
    /// matches but the chain is not trusted.
    @discardableResult
    func addUntrustedPinned(_ name: String) throws -> Host {
        let leaf = try SelfSignedLeaf.make(commonName: name, dnsNames: [name])
        let server = try keep(LocalTLSServer(identity: Identity(leaf: leaf)))
        return add(Host(name: name, port: server.port, leaf: [Self.pin(leaf.certificate)], leafCertificate: leaf.certificate))
    }

    @discardableResult
    func addUnpinned(_ name: String) throws -> Host {
        let (server, leaf) = try serveLeaf(name)
        return add(Host(name: name, port: server.port, leafCertificate: leaf.certificate))
    }

    /// ok by the CA pin, with a leaf that ends `daysLeft` days from now
    /// (negative: already expired).
    @discardableResult
    func addExpiring(_ name: String, daysLeft: Double) throws -> Host {
        let (server, leaf) = try serveLeaf(name, validity: .ending(inDays: daysLeft, issuedDaysAgo: 80))
        return add(Host(name: name, port: server.port, ca: [Self.pin(root.certificate)], leafCertificate: leaf.certificate))
    }

    /// error `refused`: nothing listens on the port.
    @discardableResult
    func addRefused(_ name: String) throws -> Host {
        add(Host(name: name, port: try LocalPorts.closedPort(), ca: [Self.pin(root.certificate)]))
    }

    /// error `timeout`: accepts TCP and never answers.
    @discardableResult
    func addBlackHole(_ name: String) throws -> BlackHoleServer {
        let server = try keep(BlackHoleServer())
        add(Host(name: name, port: server.port, ca: [Self.pin(root.certificate)]))
        return server
    }

    /// error `tls`: answers the ClientHello with HTTP.
    @discardableResult
    func addPlaintext(_ name: String) throws -> Host {
        let server = try keep(PlaintextServer())
        return add(Host(name: name, port: server.port, ca: [Self.pin(root.certificate)]))
    }

    @discardableResult
    func add(_ host: Host) -> Host {
        hosts.append(host)
        return host
    }

    // MARK: Files

    /// Writes `pinwatch.yaml` (or `name`) with `settings` (top-level lines
    /// such as `proxy: off`) above `only` (default: every host); every host
    /// trusts `trust.pem`.
    @discardableResult
    func writeConfig(
        settings: [String] = [], timeout: String = "3s", pinsets: [String: [String]] = [:],
        only: [Host]? = nil, name: String = "pinwatch.yaml"
    ) throws -> URL {
        let hosts = only ?? self.hosts
        var lines = ["timeout: \(timeout)", "trust: trust.pem", "concurrency: 16"] + settings
        if !pinsets.isEmpty {
            lines.append("pinsets:")
            for (name, ca) in pinsets.sorted(by: { $0.key < $1.key }) {
                lines += ["  \(name):", "    ca:"] + ca.map { "      - \($0)" }
            }
        }
        lines.append(hosts.isEmpty ? "hosts: []" : "hosts:")
        for host in hosts {
            lines += ["  - host: \(host.name)", "    port: \(host.port)", "    connect: 127.0.0.1"]
            if let sni = host.sni { lines.append("    sni: \(sni)") }
            if let pinset = host.pinset { lines.append("    pinset: \(pinset)") }
            lines += host.entryLines.map { "    " + $0 }
            if !host.ca.isEmpty || !host.leaf.isEmpty {
                lines.append("    pins:")
                if !host.ca.isEmpty { lines += ["      ca:"] + host.ca.map { "        - \($0)" } }
                if !host.leaf.isEmpty { lines += ["      leaf:"] + host.leaf.map { "        - \($0)" } }
            }
        }
        return try write(lines.joined(separator: "\n") + "\n", to: name)
    }

    @discardableResult
    func write(_ text: String, to name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// Runs the binary with the fleet's config (unless `arguments` names one).
    func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 30,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> PinwatchBinary.Outcome {
        try PinwatchBinary.run(
            arguments, environment: environment, currentDirectory: directory, timeout: timeout, file: file, line: line)
    }
}
