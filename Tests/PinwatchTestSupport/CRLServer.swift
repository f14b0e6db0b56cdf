import Foundation

/// A plain HTTP server on 127.0.0.1 (Python's, in a process of its own)
/// that serves a folder's files, and two hostile paths: `/huge.crl`, 100 MB
/// of zeros announced and sent, and `/stall.crl`, which never answers. It
/// serves a file by the last part of the request's path, so it also plays
/// an HTTP proxy, which is sent the whole URL (`requestTargets`).
package final class CRLServer {
    package let port: Int
    private let process: ServerProcess
    private let folder: URL

    /// Bytes `/huge.crl` sends.
    package static let hugeSize = 100 * 1_000 * 1_000

    private static let script = """
        import http.server, os, socketserver, sys, time
        folder, portfile = sys.argv[1], sys.argv[2]
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass
            def do_GET(self):
                # Every request target as it came: a proxy's is the whole URL.
                with open(os.path.join(folder, "requests.log"), "a") as log:
                    log.write(self.path + "\\n")
                if self.path == "/stall.crl":
                    time.sleep(120)
                    return
                if self.path == "/huge.crl":
                    self.send_response(200)
                    self.send_header("Content-Length", str(\(hugeSize)))
                    self.end_headers()
                    chunk = bytes(1 << 20)
                    try:
                        for _ in range(\(hugeSize) >> 20):
                            self.wfile.write(chunk)
                    except OSError:
                        pass
                    return
                name = os.path.basename(self.path)
                path = os.path.join(folder, name)
                if not name or not os.path.isfile(path):
                    self.send_response(404)
                    self.end_headers()
                    return
                body = open(path, "rb").read()
                self.send_response(200)
                self.send_header("Content-Type", "application/pkix-crl")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
        server = Server(("127.0.0.1", 0), Handler)
        with open(portfile + ".tmp", "w") as out:
            out.write(str(server.server_address[1]))
        os.rename(portfile + ".tmp", portfile)
        server.serve_forever()
        """

    /// Serves `folder`'s files by name.
    package init(folder: URL) throws {
        self.folder = folder
        let portFile = folder.appendingPathComponent("crl-server.port")
        process = try ServerProcess(
            ["/usr/bin/python3", "-c", Self.script, folder.path, portFile.path],
            output: folder.appendingPathComponent("crl-server.log").path)
        var found: Int?
        _ = process.wait(upTo: 10) {
            found = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            return found != nil
        }
        guard let found else {
            process.stop()
            throw ServerProcess.Failure(description: "the CRL server did not start")
        }
        port = found
    }

    package func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// The request targets received so far, oldest first.
    package var requestTargets: [String] {
        let log = (try? String(contentsOf: folder.appendingPathComponent("requests.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    package func stop() { process.stop() }
}
