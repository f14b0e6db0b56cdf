import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// Debian's Exim (`exim4-daemon-light`) on 127.0.0.1 as a mail server that
/// offers STARTTLS with an identity of our PKI and accepts no mail: its own
/// configuration, spool and logs in a temporary folder, in the foreground
/// (`-bdf`), ended by its PID. Exim takes an alternative configuration
/// (`-C`) only from root, so the tests that use it need root.
package final class EximSMTPServer {
    package static let path = "/usr/sbin/exim4"
    package static var isUsable: Bool { FileManager.default.isExecutableFile(atPath: path) && getuid() == 0 }
    /// The account Debian's Exim receives mail as.
    private static let user = "Debian-exim"

    package let host = "127.0.0.1"
    package let port: Int
    private let process: ServerProcess
    private let folder: URL

    /// `offersTLS` false leaves STARTTLS out of the EHLO reply.
    package init(identity: Identity, offersTLS: Bool = true, startTimeout: TimeInterval = 20) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-exim-\(UUID().uuidString)")
        let spool = folder.appendingPathComponent("spool")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("chain.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        try identity.chain.map(\.pem).joined().write(toFile: certificate, atomically: true, encoding: .utf8)
        try identity.key.pem.write(toFile: key, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        // Exim reads the key and writes its spool and logs as its own user;
        // the configuration must stay root's.
        for path in [folder.path, spool.path, certificate, key] {
            try FileManager.default.setAttributes([.ownerAccountName: Self.user], ofItemAtPath: path)
        }
        let configuration = folder.appendingPathComponent("exim.conf").path
        try """
        primary_hostname = mail.test
        local_interfaces = 127.0.0.1
        keep_environment =
        tls_advertise_hosts = \(offersTLS ? "*" : "")
        tls_certificate = \(certificate)
        tls_privatekey = \(key)
        spool_directory = \(spool.path)
        log_file_path = \(folder.path)/%slog
        acl_smtp_rcpt = refuse_all
        begin acl
        refuse_all:
          deny

        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        let pidFile = folder.appendingPathComponent("exim.pid").path
        let log = folder.appendingPathComponent("exim.out").path
        port = try LocalPorts.closedPort()
        process = try ServerProcess([Self.path, "-bdf", "-oX", "\(port)", "-oP", pidFile, "-C", configuration], output: log)
        // Exim writes its PID file once it listens.
        let started = process.wait(upTo: startTimeout) {
            (try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == String(process.pid)
        }
        guard started else {
            process.stop(signal: SIGKILL)
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let panic = (try? String(contentsOfFile: "\(folder.path)/paniclog", encoding: .utf8)) ?? ""
            throw ServerProcess.Failure(description: "Exim did not start: \(output.suffix(400)) \(panic.suffix(400))")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    package func stop() {
        process.stop()
    }
}
