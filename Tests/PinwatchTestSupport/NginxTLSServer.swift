import Foundation
import PinwatchLocalWorld
import PinwatchProbe

/// Debian's nginx (`nginx-light`) on 127.0.0.1 serving one or more
/// identities from one `server` block (`ssl_certificate` once each), so
/// nginx picks among them by what the client offers, as a real
/// dual-certificate site does. Runs as one process (`master_process off`)
/// from a temporary folder, started and stopped within bounded waits and
/// ended by its own PID.
package final class NginxTLSServer {
    package static let path = "/usr/sbin/nginx"
    package static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    package let host = "127.0.0.1"
    package let port: Int
    private let process: ServerProcess
    private let folder: URL

    package struct StartFailure: Error, CustomStringConvertible {
        package let description: String
    }

    /// `protocols` is nginx's `ssl_protocols` (its 1.22 default lacks TLS 1.3).
    package init(identities: [Identity], protocols: String = "TLSv1.2 TLSv1.3", startTimeout: TimeInterval = 10) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinwatch-nginx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var certificateLines: [String] = []
        for (index, identity) in identities.enumerated() {
            let chainFile = folder.appendingPathComponent("chain-\(index).pem")
            let keyFile = folder.appendingPathComponent("key-\(index).pem")
            try identity.chain.map(\.pem).joined().write(to: chainFile, atomically: true, encoding: .utf8)
            try identity.key.pem.write(to: keyFile, atomically: true, encoding: .utf8)
            certificateLines.append("ssl_certificate \(chainFile.path); ssl_certificate_key \(keyFile.path);")
        }
        // A port found free a moment ago may be taken by the time nginx
        // binds it; nginx then exits at once and another port is tried.
        var lastFailure = "not started"
        for _ in 0..<3 {
            let candidate = try LocalPorts.closedPort()
            let started = try Self.start(
                in: folder, port: candidate, certificateLines: certificateLines, protocols: protocols, timeout: startTimeout)
            switch started {
            case .running(let started):
                port = candidate
                process = started
                return
            case .exited(let log):
                lastFailure = log
            }
        }
        try? FileManager.default.removeItem(at: folder)
        throw StartFailure(description: "nginx did not start: \(lastFailure)")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    package func stop() {
        process.stop()
    }

    private enum Start {
        case running(ServerProcess)
        case exited(String)
    }

    /// Starts nginx on `port` and waits until it has written its PID file,
    /// which it does only once its listening socket is open.
    private static func start(
        in folder: URL, port: Int, certificateLines: [String], protocols: String, timeout: TimeInterval
    ) throws -> Start {
        let pidFile = folder.appendingPathComponent("nginx-\(port).pid")
        let errorLog = folder.appendingPathComponent("error-\(port).log")
        let configuration = folder.appendingPathComponent("nginx-\(port).conf")
        let temporary = { (name: String) in folder.appendingPathComponent(name).path }
        try """
        daemon off;
        master_process off;
        pid \(pidFile.path);
        error_log \(errorLog.path) warn;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(temporary("body"));
            proxy_temp_path \(temporary("proxy"));
            fastcgi_temp_path \(temporary("fastcgi"));
            uwsgi_temp_path \(temporary("uwsgi"));
            scgi_temp_path \(temporary("scgi"));
            server {
                listen 127.0.0.1:\(port) ssl;
                ssl_protocols \(protocols);
                \(certificateLines.joined(separator: "\n        "))
                return 204;
            }
        }

        """.write(to: configuration, atomically: true, encoding: .utf8)
        let process = try ServerProcess(
            [path, "-e", errorLog.path, "-p", folder.path, "-c", configuration.path], output: errorLog.path)
        let listening = process.wait(upTo: timeout) {
            (try? String(contentsOf: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == String(process.pid)
        }
        if listening { return .running(process) }
        if process.hasExited { return .exited((try? String(contentsOf: errorLog, encoding: .utf8)) ?? "no error log") }
        process.stop(signal: SIGKILL)
        throw StartFailure(description: "nginx did not listen on 127.0.0.1:\(port) within \(timeout) s")
    }
}
