import FlyingFox
import FlyingSocks
import Foundation
import PinwatchCore

/// The exporter's HTTP face: `/metrics`, `/probe`, `/-/healthy`, `/-/ready`.
///
/// FlyingFox parses HTTP; this file only routes and answers. Every answer
/// is small and computed from state already at hand, except `/probe`,
/// which is bounded by the exporter's in-flight limit and the timeout.
public final class ExporterHTTPServer: Sendable {
    private let server: HTTPServer
    private let exporter: Exporter

    /// `listen` is `host:port` with an IP literal or `localhost`.
    public init(exporter: Exporter, listen: String, log: @escaping @Sendable (String) -> Void) throws {
        guard let (host, port) = ListenAddress.split(listen), let port16 = UInt16(exactly: port) else {
            throw ProbeQueryProblem("listen address \(EchoedInput.quoted(listen)) is not host:port")
        }
        let address: any SocketAddress
        let ip = host == "localhost" ? "127.0.0.1" : host
        do {
            address = ip.contains(":") ? try sockaddr_in6.inet6(ip6: ip, port: port16) : try sockaddr_in.inet(ip4: ip, port: port16)
        } catch {
            throw ProbeQueryProblem("listen address \(EchoedInput.quoted(listen)): give an IP address (or localhost) and a port")
        }
        server = HTTPServer(address: address, timeout: 10, logger: ForwardingLogger(log: log))
        self.exporter = exporter
    }

    private static func route(_ server: HTTPServer, exporter: Exporter) async {
        await server.appendRoute("GET /metrics") { _ in
            guard exporter.isReady else {
                return text(.serviceUnavailable, "no cycle has completed yet\n")
            }
            return HTTPResponse(
                statusCode: .ok, headers: [.contentType: PrometheusExposition.contentType], body: exporter.metrics)
        }
        await server.appendRoute("GET /probe") { request in
            let items = request.query.map { (name: $0.name, value: $0.value) }
            switch ProbeQuery.parse(items) {
            case .failure(let problem):
                return text(.badRequest, problem.description + "\n")
            case .success(let query):
                switch await exporter.probe(query) {
                case .success(let body):
                    return HTTPResponse(statusCode: .ok, headers: [.contentType: PrometheusExposition.contentType], body: body)
                case .failure(let problem):
                    return text(.badRequest, problem.description + "\n")
                }
            }
        }
        await server.appendRoute("GET /-/healthy") { _ in text(.ok, "pinwatch is healthy\n") }
        await server.appendRoute("GET /-/ready") { _ in
            exporter.isReady ? text(.ok, "pinwatch is ready\n") : text(.serviceUnavailable, "first cycle still running\n")
        }
        await server.appendRoute("GET /") { _ in
            text(.ok, "pinwatch exporter: /metrics, /probe?target=HOST[:PORT]&pinset=NAME, /-/healthy, /-/ready\n")
        }
        await server.appendRoute("*") { _ in text(.notFound, "not found: try /metrics\n") }
    }

    /// Serves until the process ends; throws when the address cannot be bound.
    public func run() async throws {
        await Self.route(server, exporter: exporter)
        try await server.run()
    }

    /// Waits until the socket listens (for start-up errors to surface).
    public func waitUntilListening() async throws {
        try await server.waitUntilListening(timeout: 5)
    }

    private static func text(_ status: HTTPStatusCode, _ body: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: [.contentType: "text/plain; charset=utf-8"], body: Data(body.utf8))
    }
}

/// FlyingFox's own log lines (warnings and errors only) into ours.
private struct ForwardingLogger: FlyingSocks.Logging {
    let log: @Sendable (String) -> Void

    func logDebug(_ debug: @autoclosure () -> String) {}
    func logInfo(_ info: @autoclosure () -> String) {}
    func logWarning(_ warning: @autoclosure () -> String) { log(warning()) }
    func logError(_ error: @autoclosure () -> String) { log(error()) }
    func logCritical(_ critical: @autoclosure () -> String) { log(critical()) }
}
