import Foundation
import PinwatchCore
import PinwatchLocalWorld
import PinwatchProbe
import PinwatchTestSupport

/// `pinwatch-soak-lab FOLDER [FLAP_SECONDS]`: the mixed local fleet that
/// scripts/soak runs `watch` and `serve` against. Writes FOLDER/pinwatch.yaml
/// and FOLDER/trust.pem, prints `ready`, then keeps its servers up until
/// stdin closes or SIGTERM. Two hosts flap: their server stops and comes
/// back on the same port every FLAP_SECONDS; FOLDER/flap.state holds
/// `up` or `down` and when that began (Unix seconds), so the soak can
/// check that pinwatch follows.
@main
enum SoakLab {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        guard let folder = arguments.first else {
            FileHandle.standardError.write(Data("usage: pinwatch-soak-lab FOLDER [FLAP_SECONDS]\n".utf8))
            exit(2)
        }
        let flapSeconds = arguments.dropFirst().first.flatMap(Double.init) ?? 20
        let world = try LocalWorld(name: "Soak", organization: "Soak Lab")
        let root = LocalWorld.spkiPin(world.root.certificate).text
        var hosts: [(name: String, port: Int, ca: [String], leaf: [String])] = []

        for number in 1...4 {
            let name = "good\(number).soak.test"
            hosts.append((name, try world.serveLeaf(name).server.port, [root], []))
        }
        for number in 1...2 {
            let name = "leafonly\(number).soak.test"
            let (server, leaf) = try world.serveLeaf(name)
            let stale = PinText.sha256(try PrivateKey.ecdsa(.p256).subjectPublicKeyInfoSHA256)
            hosts.append((name, server.port, [stale], [LocalWorld.spkiPin(leaf.certificate).text]))
        }
        let selfSigned = try SelfSignedLeaf.make(commonName: "untrusted.soak.test", dnsNames: ["untrusted.soak.test"])
        hosts.append(("untrusted.soak.test", world.keep(try LocalTLSServer(identity: Identity(leaf: selfSigned))).port, [root], []))
        hosts.append(("refused.soak.test", try LocalPorts.closedPort(), [root], []))
        hosts.append(("blackhole.soak.test", world.keep(try BlackHoleServer()).port, [root], []))
        // A record header, then a byte every 300 ms: slower than any timeout.
        let slow = try ScriptedPeer(.awaitBytes(1), .trickle([0x16, 0x03, 0x03, 0x01, 0x00] + Array(repeating: 2, count: 200), every: 0.3))
        hosts.append(("slow.soak.test", world.keep(slow).port, [root], []))

        var flapping: [(name: String, identity: Identity, server: LocalTLSServer?, port: Int)] = []
        for number in 1...2 {
            let name = "flap\(number).soak.test"
            let leaf = try world.issuing.issueLeaf(commonName: name, dnsNames: [name])
            let identity = Identity(leaf: leaf, intermediates: [world.issuing.certificate])
            let server = try LocalTLSServer(identity: identity)
            flapping.append((name, identity, server, server.port))
            hosts.append((name, server.port, [root], []))
        }

        try world.trustPEM.write(toFile: "\(folder)/trust.pem", atomically: true, encoding: .utf8)
        var lines = ["interval: 1s", "timeout: 800ms", "concurrency: 32", "trust: trust.pem", "hosts:"]
        for host in hosts {
            lines += ["  - host: \(host.name)", "    port: \(host.port)", "    connect: 127.0.0.1", "    pins:"]
            if !host.ca.isEmpty { lines += ["      ca: [\(host.ca.map { "\"\($0)\"" }.joined(separator: ", "))]"] }
            if !host.leaf.isEmpty { lines += ["      leaf: [\(host.leaf.map { "\"\($0)\"" }.joined(separator: ", "))]"] }
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(folder)/pinwatch.yaml", atomically: true, encoding: .utf8)

        let statePath = "\(folder)/flap.state"
        func record(_ state: String) {
            try? "\(state) \(Int(Date().timeIntervalSince1970))\n".write(toFile: statePath, atomically: true, encoding: .utf8)
        }
        record("up")
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + flapSeconds, repeating: flapSeconds)
        timer.setEventHandler {
            let goingDown = flapping[0].server != nil
            for index in flapping.indices {
                if goingDown {
                    flapping[index].server?.stop()
                    flapping[index].server = nil
                } else {
                    flapping[index].server = try? LocalTLSServer(identity: flapping[index].identity, port: flapping[index].port)
                }
            }
            record(goingDown ? "down" : "up")
        }
        timer.resume()

        let stdin = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO, queue: .main)
        var buffer = [UInt8](repeating: 0, count: 256)
        stdin.setEventHandler {
            if read(STDIN_FILENO, &buffer, buffer.count) <= 0 { exit(0) }
        }
        stdin.resume()
        signal(SIGTERM) { _ in exit(0) }
        print("ready \(hosts.count) hosts")
        fflush(stdout)
        withExtendedLifetime((world, timer, stdin)) { dispatchMain() }
    }
}
