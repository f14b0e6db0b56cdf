import NIOCore
import NIOHTTP1

/// Backpressure for pipelined requests: while a connection's answers wait
/// to be sent (the channel is not writable), its next request is held and
/// the socket is not read.
///
/// NIO's pipelining handler hands on the next request as soon as an answer
/// is written, sent or not; a client that pipelines `GET /metrics` and
/// never reads would otherwise queue answers without end. Sits after that
/// handler, so the `read` it withholds never reaches the socket.
final class ResponseBackpressure: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// At most one request's parts: the pipelining handler gives one at a time.
    private var held = CircularBuffer<NIOAny>()
    private var readWithheld = false

    private func mustWait(_ context: ChannelHandlerContext) -> Bool {
        !held.isEmpty || !context.channel.isWritable
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !mustWait(context) else {
            held.append(data)
            return
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        guard !mustWait(context) else {
            readWithheld = true
            return
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        while context.channel.isWritable, let next = held.popFirst() {
            context.fireChannelRead(next)
        }
        if readWithheld, !mustWait(context) {
            readWithheld = false
            context.read()
        }
    }
}
