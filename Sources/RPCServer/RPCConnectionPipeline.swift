import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The handlers a new connection starts with: HTTP/1.1 with NIO's
/// pipelining and error handling, a WebSocket upgrader for `/jsonrpc`,
/// a 30-second idle timeout (aria2c's) and `JSONRPCHTTPHandler`. An
/// upgrade swaps the HTTP handlers for `WebSocketRPCHandler`; a WebSocket
/// has no idle timeout (a front end may sit open for days waiting for
/// notifications).
struct RPCConnectionPipeline {
    let configuration: RPCServerConfiguration
    let calls: RPCCallRunner
    let clients: WebSocketClients

    private static let httpName = "rpc-http"
    private static let idleName = "rpc-idle"

    /// Runs on the channel's event loop.
    func configure(_ channel: any Channel) throws {
        let configuration = self.configuration
        let calls = self.calls
        let clients = self.clients
        let idle = IdleStateHandler(readTimeout: .seconds(30))
        let http = JSONRPCHTTPHandler(configuration: configuration, calls: calls)
        let upgrader = NIOWebSocketServerUpgrader(
            // NIO's decoder refuses a larger single frame before buffering
            // it; `WebSocketRPCHandler` answers that and closes (1009).
            maxFrameSize: configuration.maxRequestBytes,
            automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                // Declined upgrades fall through to `JSONRPCHTTPHandler`,
                // which answers 404 or 403 as the request deserves.
                let accepted = JSONRPCHTTPHandler.path(of: head.uri) == "/jsonrpc"
                    && !configuration.refusesOrigin(of: head)
                return channel.eventLoop.makeSucceededFuture(accepted ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(WebSocketRPCHandler(
                        configuration: configuration, calls: calls, clients: clients))
                }
            })
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(idle, name: Self.idleName)
        try pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [upgrader], completionHandler: { context in
                // By name: the completion handler is @Sendable and the
                // handlers themselves are not.
                context.pipeline.syncOperations.removeHandler(name: Self.httpName, promise: nil)
                context.pipeline.syncOperations.removeHandler(name: Self.idleName, promise: nil)
            }))
        try pipeline.addHandler(http, name: Self.httpName)
    }
}
