import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import PinwatchCore
import PinwatchService
import PinwatchSystem

/// The exporter's HTTP face: `/metrics`, `/probe`, `/-/healthy`, `/-/ready`.
///
/// SwiftNIO parses HTTP/1 and refuses request heads past its limit with a
/// 400 before any of them is buffered whole; this file only routes and
/// answers. Every answer comes from state at hand, except `/probe`, which
/// the exporter bounds (16 in flight, each within the probe timeout).
final class ExporterHTTPServer {
    /// Longest request head accepted (request line and headers).
    static let maximumHeadBytes = 16 * 1024
    /// One read from a connection: a few dozen pipelined requests at most.
    static let readBytes = 4 * 1024
    /// Answers queued for a connection beyond which it is not read: past
    /// it, at most the answer being written is added.
    static let queuedBytes = 64 * 1024
    /// A new connection's first request head must be in by then: a client
    /// that connects and sends nothing holds a slot for this long, not for
    /// the keep-alive idle time.
    static let firstRequestTime = TimeAmount.seconds(5)
    /// Between requests on a kept-alive connection: scrapers reconnect.
    static let keepAliveIdleTime = TimeAmount.seconds(30)
    /// The event loop's nice value: on a busy machine, answers to scrapers
    /// (writing the text 50 times over) wait for the probes, not the
    /// reverse, so scrapes never make a cycle late.
    static let niceness: Int32 = 5

    private let exporter: Exporter
    /// Internal for the tests: what each render left for the scrapes.
    let metrics = MetricsBuffer()
    /// Internal for the tests: the one event loop every connection shares.
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Before the exporter's first cycle: each render is copied and
    /// compressed as it is published, off the event loop.
    init(exporter: Exporter) {
        self.exporter = exporter
        let metrics = self.metrics
        exporter.whenPublished { metrics.prepare(($0, $1)) }
    }

    /// Binds `listen` (`host:port`, an IP literal or `localhost`) and keeps
    /// at most `maximumConnections` open (a source address at most half of
    /// them), telling `logger` when either limit turns connections away;
    /// throws when the address cannot be used.
    func start(listen: String, maximumConnections: Int, logger: Logger) throws {
        guard let (host, port) = ListenAddress.split(listen) else {
            throw ListenError(description: ListenAddress.problem(listen) ?? "not host:port")
        }
        let exporter = self.exporter
        let metrics = self.metrics
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptLimitHandler(maximum: maximumConnections) { Self.log($0, to: logger) })
                }
            }
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(
                    withPipeliningAssistance: true, withServerUpgrade: nil, withErrorHandling: true
                ).flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandlers([
                        ResponseBackpressure(), FirstRequestDeadline(), IdleStateHandler(readTimeout: Self.keepAliveIdleTime),
                        IdleConnectionCloser(), HeadSizeLimit(),
                        ExporterRequestHandler(exporter: exporter, metrics: metrics),
                    ])
                }
            }
            // Small reads: what one read brings in is what NIO's pipelining
            // queues before `ResponseBackpressure` can hold the next one.
            .childChannelOption(ChannelOptions.maxMessagesPerRead, value: 1)
            .childChannelOption(
                ChannelOptions.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.readBytes)
            )
            .childChannelOption(
                ChannelOptions.writeBufferWaterMark,
                value: ChannelOptions.Types.WriteBufferWaterMark(low: Self.queuedBytes / 2, high: Self.queuedBytes))
        _ = try bootstrap.bind(host: host == "localhost" ? "127.0.0.1" : host, port: port).wait()
        // Linux keeps a nice value per thread: `who` 0 is the calling one.
        try group.next().submit { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness) }.wait()
    }

    private static func log(_ event: ConnectionLimitEvent, to logger: Logger) {
        switch event {
        case .capReached(let maximum, let times):
            logger.warning(
                "connection limit reached: new connections wait to be accepted until one closes",
                metadata: ["max_connections": "\(maximum)", "times": "\(times)"])
        case .shareReached(let source, let share, let maximum, let refused):
            logger.warning(
                "connections refused: one address holds its share of the connection limit",
                metadata: [
                    "address": "\(source)", "share": "\(share)", "max_connections": "\(maximum)", "refused": "\(refused)",
                ])
        }
    }
}

/// Closes a connection whose first request head has not arrived within
/// `ExporterHTTPServer.firstRequestTime` of its opening (a connection that
/// sends nothing, or drips its head); then the keep-alive idle time rules.
private final class FirstRequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private var deadline: Scheduled<Void>?
    private var answered = false

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !answered, case .head = unwrapInboundIn(data) {
            answered = true
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    private func arm(context: ChannelHandlerContext) {
        guard deadline == nil, !answered else { return }
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: ExporterHTTPServer.firstRequestTime) {
            bound.value.close(promise: nil)
        }
    }
}

/// A kept-alive connection that sends nothing for the keep-alive idle time
/// is closed: scrapers reconnect, and idle sockets must not pile up.
private final class IdleConnectionCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Closes connections whose request head is longer than the limit, counted
/// as the bytes arrive, before NIO's own larger limit.
private final class HeadSizeLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            let size = head.uri.utf8.count + head.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            if size > ExporterHTTPServer.maximumHeadBytes {
                ExporterRequestHandler.respond(
                    context: context, status: .badRequest, body: "request head longer than 16 KiB\n", close: true)
                return
            }
        }
        context.fireChannelRead(data)
    }
}

/// One request at a time per connection (pipelining is serialised by NIO).
private final class ExporterRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let exporter: Exporter
    private let metrics: MetricsBuffer
    private var head: HTTPRequestHead?
    /// A report's body as it comes in (`report_uri:`), bounded.
    private var reportBody: Data?
    /// A refused report's remaining parts: already answered, dropped.
    private var discarding = false
    private var discarded = 0

    init(exporter: Exporter, metrics: MetricsBuffer) {
        self.exporter = exporter
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            startReport(requestHead, context: context)
        case .body(let part):
            if discarding {
                // Answered already; past the bound, the sender is not told twice.
                discarded += part.readableBytes
                if discarded > ClientReportIntake.maximumBodyBytes * 16 { context.close(promise: nil) }
                break
            }
            // Only a report's body is read; a GET's is dropped.
            guard let collected = reportBody, let intake = exporter.clientReports else { break }
            guard collected.count + part.readableBytes <= ClientReportIntake.maximumBodyBytes else {
                reportBody = nil
                let answer = intake.tooLarge
                intake.refused(answer, source: Self.source(of: context))
                refuseReport(answer, context: context)
                discarded = collected.count + part.readableBytes
                break
            }
            reportBody?.append(contentsOf: part.readableBytesView)
        case .end:
            guard let requestHead = head else { return }
            head = nil
            if discarding {
                // What follows a refused report is not worth reading.
                discarding = false
                context.close(promise: nil)
                return
            }
            if let body = reportBody, let intake = exporter.clientReports {
                reportBody = nil
                let answer = intake.receive(body: body, query: Self.query(of: requestHead), source: Self.source(of: context))
                Self.respond(context: context, answer: answer, close: !requestHead.isKeepAlive)
                return
            }
            route(requestHead, context: context)
        }
    }

    /// A POST to `report_uri:`'s path: the rate, the token and a declared
    /// length are checked before any body is read, and a refusal closes
    /// the connection rather than reading what follows.
    private func startReport(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard let intake = exporter.clientReports, request.method == .POST, Self.path(of: request) == intake.path else { return }
        let declared = request.headers.first(name: "Content-Length").flatMap { Int($0) }
        if let answer = intake.admit(query: Self.query(of: request), source: Self.source(of: context), declaredLength: declared) {
            refuseReport(answer, context: context)
            return
        }
        reportBody = Data()
    }

    /// Answers at once and drops the body still coming: closing with it
    /// unread would reset the connection, and the client might lose the
    /// answer. The connection closes once the request ends (or the
    /// dropped body grows past sixteen times the bound).
    private func refuseReport(_ answer: ClientReportIntake.Answer, context: ChannelHandlerContext) {
        discarding = true
        discarded = 0
        Self.respond(context: context, answer: answer, close: false)
    }

    private static func path(of request: HTTPRequestHead) -> String {
        String(request.uri.prefix { $0 != "?" })
    }

    private static func query(of request: HTTPRequestHead) -> String {
        guard let mark = request.uri.firstIndex(of: "?") else { return "" }
        return String(request.uri[request.uri.index(after: mark)...])
    }

    private static func source(of context: ChannelHandlerContext) -> String {
        context.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    private static func respond(context: ChannelHandlerContext, answer: ClientReportIntake.Answer, close: Bool) {
        respond(context: context, status: HTTPResponseStatus(statusCode: answer.status), body: answer.text, close: close)
    }

    private func route(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        let close = !request.isKeepAlive
        if let intake = exporter.clientReports, Self.path(of: request) == intake.path {
            Self.respond(context: context, status: .methodNotAllowed, body: "only POST: clients post their reports here\n", close: close)
            return
        }
        guard request.method == .GET else {
            Self.respond(context: context, status: .methodNotAllowed, body: "only GET\n", close: close)
            return
        }
        let parts = request.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.first.map(String.init) ?? "/"
        switch path {
        case "/metrics":
            guard exporter.isReady else {
                Self.respond(context: context, status: .serviceUnavailable, body: "no cycle has completed yet\n", close: close)
                return
            }
            // Read at each scrape, not each cycle: CPU time and descriptors
            // are the exporter's own now, whatever the interval.
            var processText = PrometheusExposition.process(ProcessFigures.readOwn())
            // Counted as reports arrive, not per cycle: a report shows at the next scrape.
            if let intake = exporter.clientReports { processText += intake.exposition() }
            let process = Array(processText.utf8)
            let allocator = context.channel.allocator
            if Self.acceptsGzip(request) {
                let (head, cycle) = metrics.gzipHead(for: exporter.metrics, allocator: allocator)
                Self.respond(
                    context: context, status: .ok, bodies: [cycle, allocator.buffer(bytes: head.tail(process))],
                    contentType: PrometheusExposition.contentType, encoding: "gzip", close: close)
            } else {
                let cycle = metrics.buffer(for: exporter.metrics, allocator: allocator)
                Self.respond(
                    context: context, status: .ok, bodies: [cycle, allocator.buffer(bytes: process)],
                    contentType: PrometheusExposition.contentType, close: close)
            }
        case "/probe":
            probe(query: parts.count > 1 ? String(parts[1]) : "", context: context, close: close)
        case "/-/healthy":
            Self.respond(context: context, status: .ok, body: "pinwatch is healthy\n", close: close)
        case "/-/ready":
            let ready = exporter.isReady
            Self.respond(
                context: context, status: ready ? .ok : .serviceUnavailable,
                body: ready ? "pinwatch is ready\n" : "first cycle still running\n", close: close)
        case "/":
            Self.respond(
                context: context, status: .ok,
                body: "pinwatch exporter: /metrics, /probe?target=HOST[:PORT]&pinset=NAME, /-/healthy, /-/ready\n", close: close)
        default:
            Self.respond(context: context, status: .notFound, body: "not found: try /metrics\n", close: close)
        }
    }

    /// `Accept-Encoding` naming gzip with a weight above 0 (Prometheus
    /// sends `gzip`; curl `--compressed` sends `deflate, gzip`).
    static func acceptsGzip(_ request: HTTPRequestHead) -> Bool {
        for value in request.headers["Accept-Encoding"] {
            for item in value.split(separator: ",") {
                let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                guard parts.first == "gzip" || parts.first == "x-gzip" else { continue }
                let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
                if weight > 0 { return true }
            }
        }
        return false
    }

    private func probe(query: String, context: ChannelHandlerContext, close: Bool) {
        let items = ProbeQuery.items(fromQueryString: query)
        let query: ProbeQuery
        switch ProbeQuery.parse(items) {
        case .failure(let problem):
            Self.respond(context: context, status: problem.httpStatus, body: problem.description + "\n", close: close)
            return
        case .success(let parsed):
            query = parsed
        }
        let exporter = self.exporter
        let loop = context.eventLoop
        let box = NIOLoopBound(context, eventLoop: loop)
        Task {
            let outcome = await exporter.probe(query)
            loop.execute {
                let context = box.value
                switch outcome {
                case .success(let body):
                    Self.respond(context: context, status: .ok, body: body, contentType: PrometheusExposition.contentType, close: close)
                case .failure(let problem):
                    Self.respond(context: context, status: problem.httpStatus, body: problem.description + "\n", close: close)
                }
            }
        }
    }

    static func respond(
        context: ChannelHandlerContext, status: HTTPResponseStatus, body: String, contentType: String = "text/plain; charset=utf-8",
        close: Bool
    ) {
        respond(context: context, status: status, body: Data(body.utf8), contentType: contentType, close: close)
    }

    static func respond(context: ChannelHandlerContext, status: HTTPResponseStatus, body: Data, contentType: String, close: Bool) {
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        respond(context: context, status: status, body: buffer, contentType: contentType, close: close)
    }

    static func respond(context: ChannelHandlerContext, status: HTTPResponseStatus, body: ByteBuffer, contentType: String, close: Bool) {
        respond(context: context, status: status, bodies: [body], contentType: contentType, close: close)
    }

    /// One answer written from several buffers, so the shared cycle text is
    /// never copied.
    static func respond(
        context: ChannelHandlerContext, status: HTTPResponseStatus, bodies: [ByteBuffer], contentType: String,
        encoding: String? = nil, close: Bool
    ) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        if let encoding { headers.add(name: "Content-Encoding", value: encoding) }
        headers.add(name: "Content-Length", value: String(bodies.reduce(0) { $0 + $1.readableBytes }))
        if close { headers.add(name: "Connection", value: "close") }
        context.write(
            NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        for body in bodies {
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        }
        let done = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        if close {
            done.whenComplete { _ in context.close(promise: nil) }
        }
    }
}

/// The last render's text as one ByteBuffer, and its gzip copy, each made
/// once per render as it is published (`prepare`, on the exporter's render
/// queue): every scrape writes the same storage, so 50 scrapers of 10,000
/// hosts cost 50 writes of one buffer, never a copy or a compression on
/// the event loop. A render no `prepare` saw (a server without one) is
/// copied, and compressed, by the first scrape that asks.
final class MetricsBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var generation = -1
    private var plain = ByteBuffer()
    private var gzip: (head: GzipHead, buffer: ByteBuffer)?
    /// gzip copies made since start: one per render at most.
    private(set) var compressions = 0

    /// Both forms of a render, made outside the lock: scrapes of the
    /// previous render go on meanwhile.
    func prepare(_ metrics: (text: Data, generation: Int), allocator: ByteBufferAllocator = ByteBufferAllocator()) {
        var fresh = allocator.buffer(capacity: metrics.text.count)
        fresh.writeBytes(metrics.text)
        let head = fresh.withUnsafeReadableBytes { GzipHead($0) }
        let compressed = (head, allocator.buffer(bytes: head.bytes))
        lock.lock()
        defer { lock.unlock() }
        guard metrics.generation > generation else { return }
        plain = fresh
        gzip = compressed
        compressions += 1
        generation = metrics.generation
    }

    func buffer(for metrics: (text: Data, generation: Int), allocator: ByteBufferAllocator) -> ByteBuffer {
        lock.lock()
        defer { lock.unlock() }
        refresh(metrics, allocator: allocator)
        return plain
    }

    /// The render's gzip head, made now if `prepare` did not.
    func gzipHead(
        for metrics: (text: Data, generation: Int), allocator: ByteBufferAllocator = ByteBufferAllocator()
    ) -> (GzipHead, ByteBuffer) {
        lock.lock()
        defer { lock.unlock() }
        refresh(metrics, allocator: allocator)
        if let gzip { return gzip }
        // Deflated from the plain buffer itself: no other copy of the text is kept.
        let head = plain.withUnsafeReadableBytes { GzipHead($0) }
        compressions += 1
        let made = (head, allocator.buffer(bytes: head.bytes))
        gzip = made
        return made
    }

    private func refresh(_ metrics: (text: Data, generation: Int), allocator: ByteBufferAllocator) {
        // A newer render already prepared stays: the scrape gets it.
        guard metrics.generation > generation else { return }
        var fresh = allocator.buffer(capacity: metrics.text.count)
        fresh.writeBytes(metrics.text)
        plain = fresh
        gzip = nil
        generation = metrics.generation
    }
}

extension ProbeQueryError {
    fileprivate var httpStatus: HTTPResponseStatus { isForbidden ? .forbidden : .badRequest }
}

struct ListenError: Error, CustomStringConvertible {
    var description: String
}
