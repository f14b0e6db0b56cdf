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
final class AcceptLimitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = Channel
    typealias OutboundIn = Channel

    private let maximum: Int
    private var open = 0
    private var readWithheld = false

    init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        open += 1
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        child.closeFuture.whenComplete { _ in
            loop.execute { bound.value.handler.connectionClosed(context: bound.value.context) }
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard open < maximum else {
            readWithheld = true
            return
        }
        context.read()
    }

    private func connectionClosed(context: ChannelHandlerContext) {
        open -= 1
        if readWithheld, open < maximum {
            readWithheld = false
            context.read()
        }
    }
}
