import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport

/// The world one dashboard test watches: a PKI made in this process, TLS
/// servers on 127.0.0.1, and a config plus root PEM in a temporary folder.
///
/// Four hosts, one per situation the dashboard must show: `steady` is ok
/// through the root pin, `rotating` is ok until the test rotates its
/// intermediate, `stale` is leaf_only from the start (its CA rotated
/// already), `down` refuses connections.
final class DashboardFleet {
    static let steady = "steady.test"
    static let rotating = "rotating.test"
    static let stale = "stale.test"
    static let down = "down.test"
    static let names = [steady, rotating, stale, down]

    let directory: URL
    let configURL: URL
    /// Host name → port, to find each host's `host:port` on screen.
    let ports: [String: Int]
    /// The SPKI pin (`sha256/…`) of `steady`'s leaf, as the detail view must show it.
    let steadyLeafPin: String

    private let world: LocalWorld
    private let rotatingServer: LocalTLSServer

    init(interval: String = "1s") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-dashboard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        configURL = directory.appendingPathComponent("pinwatch.yaml")

        let world = try LocalWorld(name: "Dashboard Test", organization: "pinwatch tests")
        self.world = world
        let root = world.root
        let issuing = world.issuing
        let rotatedEarlier = try root.issueIntermediate(commonName: "Dashboard Issuing B", organization: "pinwatch tests")

        // Locals until every stored property is set: the helpers below
        // cannot capture `self` before that.
        var ports: [String: Int] = [:]
        var stanzas: [String] = []
        func serve(_ name: String, by issuer: CertificateAuthority) throws -> (LocalTLSServer, IssuedCertificate) {
            let served = try world.serveLeaf(name, by: issuer)
            ports[name] = served.server.port
            return served
        }
        func stanza(_ name: String, ca: [X509Certificate], leaf: [X509Certificate]) -> String {
            func list(_ certificates: [X509Certificate]) -> String {
                "[" + certificates.map { "\"\(LocalWorld.spkiPin($0).text)\"" }.joined(separator: ", ") + "]"
            }
            return """
                  - host: \(name)
                    port: \(ports[name] ?? 0)
                    connect: 127.0.0.1
                    pins:
                      ca: \(list(ca))
                      leaf: \(list(leaf))
                """
        }

        let (_, steadyLeaf) = try serve(Self.steady, by: issuing)
        steadyLeafPin = LocalWorld.spkiPin(steadyLeaf.certificate).text
        stanzas.append(stanza(Self.steady, ca: [root.certificate], leaf: []))

        let (rotating, rotatingLeaf) = try serve(Self.rotating, by: issuing)
        rotatingServer = rotating
        stanzas.append(stanza(Self.rotating, ca: [issuing.certificate], leaf: [rotatingLeaf.certificate]))

        let (_, staleLeaf) = try serve(Self.stale, by: rotatedEarlier)
        stanzas.append(stanza(Self.stale, ca: [issuing.certificate], leaf: [staleLeaf.certificate]))

        ports[Self.down] = try LocalPorts.closedPort()
        stanzas.append(stanza(Self.down, ca: [root.certificate], leaf: []))

        self.ports = ports
        try world.root.certificate.pem.write(to: directory.appendingPathComponent("root.pem"), atomically: true, encoding: .utf8)
        let yaml = """
            interval: \(interval)
            timeout: 1s
            trust: root.pem
            proxy: off
            hosts:
            \(stanzas.joined(separator: "\n"))

            """
        try yaml.write(to: configURL, atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    /// `name:port`, as the table and the banner name a host.
    func displayName(_ name: String) -> String {
        "\(name):\(ports[name] ?? 0)"
    }

    /// Gives `rotating` a new intermediate (same root, new key) and re-issues
    /// its leaf with the same key: still trusted, the leaf pin still
    /// matches, the CA pin no longer does, so ok turns leaf_only.
    func rotateIntermediate() throws {
        try world.rotateIntermediate(of: rotatingServer, hostName: Self.rotating, newIssuerName: "Dashboard Issuing C")
    }

    /// Stops the servers and removes the temporary folder.
    func stop() {
        world.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The shell command that runs the dashboard on this fleet and then
    /// reports its exit status on the (restored) screen.
    ///
    /// bash, not dash: Ctrl-C sends SIGINT to the whole foreground group,
    /// and a non-interactive dash dies of it before it can echo; bash waits
    /// and carries on when its child did not die of the signal. The shell
    /// then lingers: when a pane dies, tmux may drop the last bytes it had
    /// not read yet, and the test reads the live terminal's state anyway.
    func watchCommand(extraArguments: [String] = []) -> String {
        let invocation = ([PinwatchBinary.url.path, "watch", "--config", configURL.path] + extraArguments)
            .map(TmuxSession.quote).joined(separator: " ")
        return "bash -c " + TmuxSession.quote(invocation + "; echo EXITED:$?; sleep 30")
    }

}
