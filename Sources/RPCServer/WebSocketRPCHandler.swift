import NIOCore
import NIOPosix
import NIOWebSocket
import RPCCore

/// One WebSocket connection at `/jsonrpc`: each text (or binary, as aria2c
/// reads both) message is a call whose reply goes back as one text frame;
/// notifications arrive through `WebSocketClients.broadcast` (R73).
///
/// Memory per connection stays bounded: one message at most
/// `maxRequestBytes` (a fragmented message that grows past it is dropped
/// as it comes and answered with the JSON-RPC error of R71; a single
/// larger frame is refused by NIO's decoder before it is buffered, and
/// answered with that error before the close, 1009), one call in flight
/// and one waiting, and no reading from the socket while a call waits or
/// the client is not reading its replies. An idle connection costs only
/// its handlers, so a thousand idle clients need no thread of their own.
final class WebSocketRPCHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let configuration: RPCServerConfiguration
    private let calls: RPCCallRunner
    private let clients: WebSocketClients

    /// The message being put together from a frame and its continuations.
    private var message: ByteBuffer?
    /// The current fragmented message grew too large: its remaining
    /// continuations are dropped unread.
    private var droppingMessage = false
    /// A whole message, in the order replies must keep.
    private enum Message {
        case call([UInt8])
        /// Grew over `maxRequestBytes`: answered without a call.
        case tooLarge
    }

    /// Whole messages not yet answered.
    private var waiting: [Message] = []
    private var callInFlight = false
    /// A `read` held back while busy, issued when reading may resume.
    private var readHeldBack = false
    private var closing = false
    /// The decoder refused the stream: the close to send once every
    /// message before it is answered. Nothing more is read.
    private var closeWhenAnswered: WebSocketErrorCode?

    init(
        configuration: RPCServerConfiguration,
        calls: RPCCallRunner,
        clients: WebSocketClients
    ) {
        self.configuration = configuration
        self.calls = calls
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
            guard message == nil, !droppingMessage else {
                // A new message inside a fragmented one (RFC 6455 §5.4).
                close(context, code: .protocolError)
                return
            }
            message = frame.unmaskedData
            if frame.fin { messageComplete(context) }
        case .continuation:
            if droppingMessage {
                if frame.fin {
                    droppingMessage = false
                    waiting.append(.tooLarge)
                    callNext(context)
                }
                return
            }
            guard var partial = message else {
                close(context, code: .protocolError)
                return
            }
            var more = frame.unmaskedData
            guard partial.readableBytes + more.readableBytes <= configuration.maxRequestBytes else {
                message = nil
                droppingMessage = !frame.fin
                if frame.fin {
                    waiting.append(.tooLarge)
                    callNext(context)
                }
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
        waiting.append(.call(Array(whole.readableBytesView)))
        callNext(context)
    }

    /// Answers waiting messages in order: a call goes to `RPCCallRunner`
    /// and the next waits for its reply.
    private func callNext(_ context: ChannelHandlerContext) {
        while !callInFlight, !closing, !waiting.isEmpty {
            switch waiting.removeFirst() {
            case .tooLarge:
                send(configuration.tooLargeReply(), context)
            case .call(let body):
                callInFlight = true
                let calls = self.calls
                calls.run(body, on: context.eventLoop)
                    .assumeIsolated()
                    .whenComplete { result in
                        self.callInFlight = false
                        switch result {
                        case .success(let reply?):
                            self.send(reply.body, context).whenComplete { _ in calls.answered() }
                        case .success(nil):
                            calls.answered()
                        case .failure:
                            // The pool is shut: the server is stopping.
                            calls.answered()
                            context.close(promise: nil)
                            return
                        }
                        self.callNext(context)
                        self.resumeReadingIfAllowed(context)
                    }
            }
        }
        if !callInFlight, waiting.isEmpty, let code = closeWhenAnswered { close(context, code: code) }
    }

    /// Completes once the frame is written (or at once when closing).
    @discardableResult
    private func send(_ reply: [UInt8], _ context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        guard !closing else { return context.eventLoop.makeSucceededVoidFuture() }
        var buffer = context.channel.allocator.buffer(capacity: reply.count)
        buffer.writeBytes(reply)
        return context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)))
    }

    // MARK: Back-pressure

    /// The channel's writability as last reported: false while the
    /// client leaves more than the high-water mark of replies unread.
    private var channelIsWritable = true

    private var mayRead: Bool {
        waiting.isEmpty && channelIsWritable && closeWhenAnswered == nil
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

    /// NIO's frame decoder refused the stream (the upgrader's own error
    /// handling is off): what its handler would do, a close with the
    /// matching code, after the answers owed — for a frame over
    /// `maxRequestBytes`, the JSON-RPC error of R71 first, as a fragmented
    /// message over it gets. Any other error closes at once.
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // The decoder, now in its error state, refuses whatever follows.
        guard closeWhenAnswered == nil else { return }
        guard let problem = error as? NIOWebSocketError else { return context.close(promise: nil) }
        switch problem {
        case .invalidFrameLength:
            waiting.append(.tooLarge)
            closeWhenAnswered = .messageTooLarge
        case .fragmentedControlFrame, .multiByteControlFrameLength:
            closeWhenAnswered = .protocolError
        }
        callNext(context)
    }
}
