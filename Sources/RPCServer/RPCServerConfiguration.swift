/// Where and to whom the RPC door listens (R70, R71).
///
/// The transport applies these itself, before a body reaches the
/// dispatcher: which addresses are bound, which browser requests are
/// refused, how large a request may grow.
public struct RPCServerConfiguration: Sendable {
    /// The TCP port; 0 asks the kernel for a free one (tests), read back
    /// with `RPCServer.localPort`.
    public var port: Int
    /// false: 127.0.0.1 and ::1 only; true: 0.0.0.0 and ::.
    public var listenAll: Bool
    /// Answers CORS preflights and sends `Access-Control-Allow-Origin: *`
    /// on every reply, as aria2c's `--rpc-allow-origin-all` does.
    public var allowOriginAll: Bool
    /// Without a secret, a request with an `Origin` header (a web page, an
    /// extension) is refused unless `allowOriginAll` (R71): nothing else
    /// would stop a page the user visits from adding downloads.
    public var hasSecret: Bool
    /// The largest request body or WebSocket message accepted.
    public var maxRequestBytes: Int

    public init(
        port: Int = 6800,
        listenAll: Bool = false,
        allowOriginAll: Bool = false,
        hasSecret: Bool = false,
        maxRequestBytes: Int = 2 * 1024 * 1024
    ) {
        self.port = port
        self.listenAll = listenAll
        self.allowOriginAll = allowOriginAll
        self.hasSecret = hasSecret
        self.maxRequestBytes = maxRequestBytes
    }
}
