import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// Debian's PostgreSQL on 127.0.0.1 with `ssl = on`, serving an identity of
/// our PKI to clients that send an SSLRequest: a cluster of its own in a
/// temporary folder (initdb), run as the `postgres` account when the tests
/// run as root, and ended by its PID (fast shutdown).
package final class PostgreSQLServer {
    /// The newest installed major version's programs, if any.
    package static var programs: String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        guard let newest = versions.compactMap({ Int($0) }).max() else { return nil }
        let programs = "\(root)/\(newest)/bin"
        return FileManager.default.isExecutableFile(atPath: "\(programs)/postgres") ? programs : nil
    }

    package let host = "127.0.0.1"
    package let port: Int
    private let process: ServerProcess
    private let folder: URL

    package init(identity: Identity, startTimeout: TimeInterval = 60) throws {
        guard let programs = Self.programs else { throw ServerProcess.Failure(description: "PostgreSQL is not installed") }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // PostgreSQL refuses to run as root, and wants its files its own.
        let user = getuid() == 0 ? "postgres" : nil
        let own = { (path: String) in
            if let user { try FileManager.default.setAttributes([.ownerAccountName: user], ofItemAtPath: path) }
        }
        try own(folder.path)
        let log = folder.appendingPathComponent("postgres.log").path
        let data = folder.appendingPathComponent("data").path
        let initdb = try ServerProcess(
            ["\(programs)/initdb", "-D", data, "--auth=trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"],
            output: log, user: user)
        guard initdb.wait(upTo: startTimeout, until: { initdb.hasExited }),
            FileManager.default.fileExists(atPath: "\(data)/PG_VERSION")
        else {
            initdb.stop(signal: SIGKILL)
            throw ServerProcess.Failure(description: "initdb failed: \(Self.tail(of: log))")
        }
        let certificate = folder.appendingPathComponent("server.crt").path
        let key = folder.appendingPathComponent("server.key").path
        try identity.chain.map(\.pem).joined().write(toFile: certificate, atomically: true, encoding: .utf8)
        try identity.key.pem.write(toFile: key, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try own(certificate)
        try own(key)
        port = try LocalPorts.closedPort()
        process = try ServerProcess(
            [
                "\(programs)/postgres", "-D", data, "-k", folder.path, "-c", "listen_addresses=127.0.0.1", "-c", "port=\(port)",
                "-c", "ssl=on", "-c", "ssl_cert_file=\(certificate)", "-c", "ssl_key_file=\(key)", "-c", "fsync=off",
            ], output: log, user: user)
        // postmaster.pid's eighth line turns to "ready" once connections are accepted.
        let pidFile = "\(data)/postmaster.pid"
        let ready = process.wait(upTo: startTimeout) {
            let lines = ((try? String(contentsOfFile: pidFile, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.count >= 8 && lines[7].trimmingCharacters(in: .whitespaces) == "ready"
        }
        guard ready else {
            process.stop(signal: SIGKILL)
            throw ServerProcess.Failure(description: "PostgreSQL did not start: \(Self.tail(of: log))")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// SIGINT: PostgreSQL's fast shutdown, which ends its children too.
    package func stop() {
        process.stop(signal: SIGINT)
    }

    private static func tail(of log: String) -> String {
        String(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "no log").suffix(600))
    }
}
