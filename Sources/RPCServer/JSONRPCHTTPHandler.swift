import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RPCCore

/// One HTTP connection's requests: POST, GET and OPTIONS at `/jsonrpc`,
/// answered on the wire as aria2c 1.36 answers them
/// (`HttpServerCommand.cc`, `HttpServerBodyCommand.cc`).
///
/// A body goes to `RPCCallRunner`, which works its reply out on the thread
/// pool (it reads and writes files on a FUSE mount and may block), or on
/// this event loop when the call is brief (`Aria2Call.isBrief`). NIO's
/// `HTTPServerPipelineHandler` (ahead of this one) holds a pipelined next
/// request until this one's reply ends, so one call per connection runs at
/// a time. A WebSocket upgrade that NIO's upgrader took never reaches
/// here; one it declined does, and gets aria2c's refusal.
final class JSONRPCHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the request's head decided; carried out at its end.
    private enum Plan {
        /// A reply that needs no call: 403, 404, 400, 426, a preflight.
        case answer(HTTPResponseStatus, HTTPHeaders)
        /// POST: the body (kept under `maxRequestBytes`) is the call.
        case post(ByteBuffer)
        /// GET: the query is the call.
        case get(JSONRPCGetRequest)
    }

    private enum State {
        case idle
        case reading(HTTPRequestHead, Plan)
        /// Refused as too large: the rest of the body is dropped as it
        /// comes, never kept, until the connection closes.
        case discarding
        /// The call is being answered or its reply is being written.
        case answering
    }

    private let configuration: RPCServerConfiguration
    private let calls: RPCCallRunner
    private var state = State.idle
    /// The reply being written is a call's: `calls` hears when it is out.
    private var answeringCall = false

    init(configuration: RPCServerConfiguration, calls: RPCCallRunner) {
        self.configuration = configuration
        self.calls = calls
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard case .idle = state else { return }
            let plan = plan(for: head, context: context)
            // A body declared too large was refused by `plan` already.
            guard case .idle = state else { return }
            state = .reading(head, plan)
            if case .reading(_, .post) = state, head.headers[canonicalForm: "expect"].contains("100-continue") {
                // curl waits a second for this before sending a body over
                // 1 KiB; aria2c never sends it, so curl pauses there.
                let proceed = HTTPResponseHead(version: head.version, status: .continue)
                context.writeAndFlush(wrapOutboundOut(.head(proceed)), promise: nil)
            }
        case .body(var part):
            guard case .reading(let head, .post(var body)) = state else { return }
            guard body.readableBytes + part.readableBytes <= configuration.maxRequestBytes else {
                refuseTooLarge(head, context: context)
                return
            }
            // Drop the state's reference first so the append does not copy.
            state = .answering
            body.writeBuffer(&part)
            state = .reading(head, .post(body))
        case .end:
            guard case .reading(let head, let plan) = state else { return }
            switch plan {
            case .answer(let status, let headers):
                write(status, headers: headers, body: [], head: head, keepAlive: head.isKeepAlive, context: context)
            case .post(let body):
                call(Array(body.readableBytesView), callback: "", head: head, context: context)
            case .get(let request):
                call(request.body, callback: request.callback, head: head, context: context)
            }
        }
    }

    /// Decides from the head alone, in aria2c's order: preflight, a
    /// declined WebSocket upgrade, the path, the origin rule (R71), the
    /// method, the declared size.
    private func plan(for head: HTTPRequestHead, context: ChannelHandlerContext) -> Plan {
        let path = Self.path(of: head.uri)
        if head.method == .OPTIONS {
            // aria2c answers a preflight on any path, and adds the CORS
            // grants only when the browser asked for them.
            if configuration.refusesOrigin(of: head) { return .answer(.forbidden, [:]) }
            var headers = HTTPHeaders()
            if configuration.allowOriginAll, head.headers.contains(name: "Origin"),
               head.headers.contains(name: "Access-Control-Request-Method") {
                headers.add(name: "Access-Control-Allow-Methods", value: "POST, GET, OPTIONS")
                headers.add(name: "Access-Control-Max-Age", value: "1728000")
                let asked = head.headers["Access-Control-Request-Headers"].joined(separator: ", ")
                if !asked.isEmpty {
                    // aria2c grants every header asked for.
                    headers.add(name: "Access-Control-Allow-Headers", value: asked)
                }
            }
            return .answer(.ok, headers)
        }
        if Self.asksWebSocket(head) {
            // NIO's upgrader took every valid upgrade on its first request;
            // what reaches here gets aria2c's `websocketHandshake` answer.
            if head.method != .GET || !head.headers.contains(name: "Sec-WebSocket-Key") {
                return .answer(.badRequest, [:])
            }
            if head.headers.first(name: "Sec-WebSocket-Version") != "13" {
                return .answer(.upgradeRequired, ["Sec-WebSocket-Version": "13"])
            }
            if path != "/jsonrpc" { return .answer(.notFound, [:]) }
            if configuration.refusesOrigin(of: head) { return .answer(.forbidden, [:]) }
            // A valid upgrade after a first plain request on a keep-alive
            // connection: NIO upgrades only on a connection's first request.
            return .answer(.badRequest, [:])
        }
        guard path == "/jsonrpc" else { return .answer(.notFound, [:]) }
        if configuration.refusesOrigin(of: head) { return .answer(.forbidden, [:]) }
        switch head.method {
        case .POST:
            let declared = head.headers.first(name: "Content-Length").flatMap { Int($0) } ?? 0
            if declared > configuration.maxRequestBytes {
                refuseTooLarge(head, context: context)
                return .answer(.payloadTooLarge, [:])
            }
            return .post(context.channel.allocator.buffer(capacity: declared))
        case .GET:
            let query = head.uri.firstIndex(of: "?").map { head.uri[head.uri.index(after: $0)...] } ?? ""
            guard let request = JSONRPCGetRequest(query: Self.beforeFragment(query)) else {
                return .answer(.badRequest, [:])
            }
            return .get(request)
        default:
            return .answer(.notFound, [:])
        }
    }

    /// 413 with a JSON-RPC error at once, before the body is read, then
    /// the connection closes: aria2c closes without a word (`Request too
    /// long`), but R71 wants the client told. Our output side is shut
    /// first so the 413 is not lost to a reset while the client is still
    /// sending; the full close comes when the client closes or after a
    /// grace of two seconds.
    private func refuseTooLarge(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        if case .discarding = state { return }
        state = .discarding
        let reply = configuration.tooLargeReply()
        var headers = configuration.commonHeaders()
        headers.add(name: "Content-Type", value: "application/json-rpc")
        headers.add(name: "Content-Length", value: "\(reply.count)")
        headers.add(name: "Connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .payloadTooLarge, headers: headers))),
            promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: reply)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
    }

    /// Has the call answered (`RPCCallRunner`) and writes its reply on this loop.
    private func call(_ body: [UInt8], callback: String, head: HTTPRequestHead, context: ChannelHandlerContext) {
        state = .answering
        calls.run(body, on: context.eventLoop)
            .assumeIsolated()
            .whenComplete { result in
                guard case .success(let reply) = result else {
                    // The pool is shut: the server is stopping.
                    self.calls.answered()
                    context.close(promise: nil)
                    return
                }
                self.answeringCall = true
                self.answer(reply, callback: callback, head: head, context: context)
            }
    }

    private func answer(_ reply: Aria2Reply?, callback: String, head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: callback.isEmpty ? "application/json-rpc" : "text/javascript")
        guard let reply else {
            // aria2c answers every call; a dispatcher that chooses silence
            // (a JSON-RPC notification) gets an empty 200.
            write(.ok, headers: headers, body: [], head: head, keepAlive: head.isKeepAlive, context: context)
            return
        }
        let verdict = RPCReplyStatus(reply)
        let body = callback.isEmpty ? reply.body : Array(callback.utf8) + [UInt8(ascii: "(")] + reply.body + [UInt8(ascii: ")")]
        let keepAlive = head.isKeepAlive && verdict.keepAlive
        guard verdict.unauthorized else {
            write(verdict.status, headers: headers, body: body, head: head, keepAlive: keepAlive, context: context)
            return
        }
        // As aria2c: a wrong secret is answered after a second.
        context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) {
            self.write(verdict.status, headers: headers, body: body, head: head, keepAlive: keepAlive, context: context)
        }
    }

    private func write(
        _ status: HTTPResponseStatus, headers extra: HTTPHeaders, body: [UInt8],
        head: HTTPRequestHead, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        var headers = configuration.commonHeaders()
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(contentsOf: extra)
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                      promise: nil)
        if !body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: body.count)
            buffer.writeBytes(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        state = .idle
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if answeringCall {
            answeringCall = false
            let calls = self.calls
            written.whenComplete { _ in calls.answered() }
        }
        if !keepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    /// An idle keep-alive connection is closed after 30 s, as aria2c does;
    /// one waiting for its reply is not.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            switch state {
            case .idle, .discarding, .reading: context.close(promise: nil)
            case .answering: break
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A bad request line or header: NIO's `HTTPServerProtocolErrorHandler`
    /// has answered 400; the connection just closes. A declined WebSocket
    /// upgrade is reported here too, but its request follows and gets its
    /// answer (404, 403, 426), so the connection stays.
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if error is NIOWebSocketUpgradeError { return }
        context.close(promise: nil)
    }

    static func asksWebSocket(_ head: HTTPRequestHead) -> Bool {
        head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
            && head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// The path without query or fragment, as aria2c compares it.
    static func path(of uri: String) -> Substring {
        let beforeFragment = Self.beforeFragment(Substring(uri))
        return beforeFragment.firstIndex(of: "?").map { beforeFragment[..<$0] } ?? beforeFragment
    }

    private static func beforeFragment(_ text: Substring) -> Substring {
        text.firstIndex(of: "#").map { text[..<$0] } ?? text
    }
}
