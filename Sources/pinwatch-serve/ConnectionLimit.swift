import Glibc
import NIOCore

/// How many HTTP connections `serve` keeps open at once, and the handler
/// that holds it there.
///
/// Every connection costs a descriptor, and so does every probe, resolver
/// lookup and hook pipe. A flood of connections that took them all would
/// make every probe fail and every host look down; past the cap, the
/// listening socket is simply not read, so new connections wait in the
/// kernel's backlog and take nothing of ours.
enum ConnectionLimit {
    /// Descriptors the process needs besides probes and connections: event
    /// loops, timers, the history store, stdio, hooks' pipes.
    static let reservedDescriptors = 64

    /// A quarter of the open-file limit, and never what the probes and the
    /// reserve need: with 1,024 descriptors and 32 probes, 256 connections.
    static func derived(descriptorLimit: Int, probeConcurrency: Int) -> Int {
        let spare = descriptorLimit - probeConcurrency - reservedDescriptors
        return max(4, min(descriptorLimit / 4, spare / 2))
    }

    /// What one source address may hold: half the cap, so that a scraper
    /// always finds room beside a client that holds connections idle.
    static func share(of maximum: Int) -> Int {
        max(1, maximum / 2)
    }

    /// The address connections are counted by: an IPv4 address (or one
    /// mapped into IPv6), or an IPv6 /64, which one client usually owns whole.
    static func sourceKey(_ address: SocketAddress) -> String {
        switch address {
        case .v4(let v4):
            return address.ipAddress ?? "\(v4)"
        case .v6(let v6):
            var bytes = v6.address.sin6_addr
            let octets = withUnsafeBytes(of: &bytes) { Array($0) }
            if octets[0..<10].allSatisfy({ $0 == 0 }) && octets[10] == 0xff && octets[11] == 0xff {
                return octets[12...].map(String.init).joined(separator: ".")
            }
            let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        case .unixDomainSocket:
            return "unix"
        }
    }

    /// The process's soft open-file limit (the probe engine has already
    /// raised it to the hard one).
    static var descriptorLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: limit.rlim_cur)
    }
}

/// On the listening channel: counts accepted connections until they close
/// and withholds `read` (accepting) while `maximum` are open. With one
/// accept per read (`maxMessagesPerRead` 1), the count never passes it.
///
/// One source address (an IPv6 /64) holds at most `share` of them: a
/// client that opens connections and sends nothing would otherwise keep
/// every slot, and Prometheus's scrape would wait behind it in the backlog.
/// Past its share, a connection is accepted and closed at once.
final class AcceptLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = Channel
    typealias OutboundIn = Channel

    private let maximum: Int
    private let share: Int
    private let log: (ConnectionLimitEvent) -> Void
    private var open = 0
    private var openBySource: [String: Int] = [:]
    private var readWithheld = false
    private var capNotice = RateLimitedNotice()
    private var shareNotice = RateLimitedNotice()

    init(maximum: Int, log: @escaping (ConnectionLimitEvent) -> Void) {
        self.maximum = max(1, maximum)
        self.share = ConnectionLimit.share(of: maximum)
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        let source = child.remoteAddress.map(ConnectionLimit.sourceKey) ?? ""
        let held = openBySource[source, default: 0]
        guard held < share else {
            if let refused = shareNotice.record(now: .now()) {
                log(.shareReached(source: source, share: share, maximum: maximum, refused: refused))
            }
            child.close(promise: nil)
            return
        }
        open += 1
        openBySource[source] = held + 1
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        child.closeFuture.whenComplete { _ in
            loop.execute { bound.value.handler.connectionClosed(context: bound.value.context, source: source) }
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard open < maximum else {
            if !readWithheld, let times = capNotice.record(now: .now()) {
                log(.capReached(maximum: maximum, times: times))
            }
            readWithheld = true
            return
        }
        context.read()
    }

    private func connectionClosed(context: ChannelHandlerContext, source: String) {
        open -= 1
        let held = openBySource[source, default: 1] - 1
        openBySource[source] = held > 0 ? held : nil
        if readWithheld, open < maximum {
            readWithheld = false
            context.read()
        }
    }
}

/// What `AcceptLimitHandler` tells the log, at most once a minute each.
enum ConnectionLimitEvent {
    /// `maximum` connections are open: new ones wait in the backlog
    /// (`times`: how often since the last line).
    case capReached(maximum: Int, times: Int)
    /// `source` holds its share: `refused` connections closed since the last line.
    case shareReached(source: String, share: Int, maximum: Int, refused: Int)
}

/// Whether to log now: the first event, then at most one line each
/// `interval`, counting the events in between so the line can say how many.
struct RateLimitedNotice {
    var interval: TimeAmount = .seconds(60)
    private var last: NIODeadline?
    private var since = 0

    /// The events this line stands for (itself and the unlogged ones
    /// before it), or nil when it is too soon to log.
    mutating func record(now: NIODeadline) -> Int? {
        since += 1
        if let last, now - last < interval { return nil }
        last = now
        defer { since = 0 }
        return since
    }
}
