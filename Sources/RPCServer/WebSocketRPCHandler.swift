import NIOCore
import NIOPosix
import NIOWebSocket

/// One WebSocket connection at `/jsonrpc`: each text (or binary, as aria2c
/// reads both) message is a call whose reply goes back as one text frame;
/// notifications arrive through `WebSocketClients.broadcast` (R73).
///
/// Memory per connection stays bounded: one message at most
/// `maxRequestBytes` (a single larger frame is refused by NIO's decoder,
/// a fragmented one here, both with close code 1009), one call in flight
/// and one waiting, and no reading from the socket while a call waits or
/// the client is not reading its replies. An idle connection costs only
/// its handlers, so a thousand idle clients need no thread of their own.
final class WebSocketRPCHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let maxRequestBytes: Int
    private let threadPool: NIOThreadPool
    private let respond: @Sendable ([UInt8]) -> [UInt8]?
    private let clients: WebSocketClients

    /// The message being put together from a frame and its continuations.
    private var message: ByteBuffer?
    /// Whole messages not yet handed to `respond`.
    private var waiting: [[UInt8]] = []
    private var callInFlight = false
    /// A `read` held back while busy, issued when reading may resume.
    private var readHeldBack = false
    private var closing = false

    init(
        maxRequestBytes: Int,
        threadPool: NIOThreadPool,
        respond: @escaping @Sendable ([UInt8]) -> [UInt8]?,
        clients: WebSocketClients
    ) {
        self.maxRequestBytes = maxRequestBytes
        self.threadPool = threadPool
        self.respond = respond
        self.clients = clients
    }

    func handlerAdded(context: ChannelHandlerContext) {
        clients.add(context.channel)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        clients.remove(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        clients.remove(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            guard message == nil else {
                // A new message inside a fragmented one (RFC 6455 §5.4).
                close(context, code: .protocolError)
                return
            }
            message = frame.unmaskedData
            if frame.fin { messageComplete(context) }
        case .continuation:
            guard var partial = message else {
                close(context, code: .protocolError)
                return
            }
            var more = frame.unmaskedData
            guard partial.readableBytes + more.readableBytes <= maxRequestBytes else {
                message = nil
                close(context, code: .messageTooLarge)
                return
            }
            message = nil  // drop the second reference so the append does not copy
            partial.writeBuffer(&more)
            message = partial
            if frame.fin { messageComplete(context) }
        case .ping:
            guard !closing else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)),
                                  promise: nil)
        case .connectionClose:
            // Echo the client's status code, then close (RFC 6455 §5.5.1).
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self).map { WebSocketErrorCode(codeNumber: Int($0)) }
            close(context, code: code ?? .normalClosure)
        default:
            // Pongs, and nothing else NIO's decoder lets through.
            break
        }
    }

    private func messageComplete(_ context: ChannelHandlerContext) {
        guard let whole = message else { return }
        message = nil
        waiting.append(Array(whole.readableBytesView))
        callNext(context)
    }

    /// Hands the oldest waiting message to `respond` on the pool; replies
    /// go out in the order the messages came.
    private func callNext(_ context: ChannelHandlerContext) {
        guard !callInFlight, !closing, !waiting.isEmpty else { return }
        callInFlight = true
        let body = waiting.removeFirst()
        let respond = self.respond
        threadPool.runIfActive(eventLoop: context.eventLoop) { respond(body) }
            .assumeIsolated()
            .whenComplete { result in
                self.callInFlight = false
                switch result {
                case .success(let reply?):
                    guard !self.closing else { return }
                    var buffer = context.channel.allocator.buffer(capacity: reply.count)
                    buffer.writeBytes(reply)
                    context.writeAndFlush(
                        self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
                case .success(nil):
                    break
                case .failure:
                    // The pool is shut: the server is stopping.
                    context.close(promise: nil)
                    return
                }
                self.callNext(context)
                self.resumeReadingIfAllowed(context)
            }
    }

    // MARK: Back-pressure

    /// The channel's writability as last reported: false while the
    /// client leaves more than the high-water mark of replies unread.
    private var channelIsWritable = true

    private var mayRead: Bool {
        waiting.isEmpty && channelIsWritable
    }

    func read(context: ChannelHandlerContext) {
        if mayRead {
            context.read()
        } else {
            readHeldBack = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        channelIsWritable = context.channel.isWritable
        resumeReadingIfAllowed(context)
        context.fireChannelWritabilityChanged()
    }

    private func resumeReadingIfAllowed(_ context: ChannelHandlerContext) {
        if readHeldBack && mayRead {
            readHeldBack = false
            context.read()
        }
    }

    // MARK: Closing

    private func close(_ context: ChannelHandlerContext, code: WebSocketErrorCode) {
        guard !closing else { return }
        closing = true
        waiting.removeAll()
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)))
            .whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
