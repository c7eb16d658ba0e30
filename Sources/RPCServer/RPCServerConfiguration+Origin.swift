import NIOHTTP1

extension RPCServerConfiguration {
    /// R71: without a secret, a request that says it comes from a web page
    /// (it carries `Origin`, which browsers add and pages cannot remove) is
    /// refused unless the user allowed every origin. With a secret the call
    /// still needs the token, so aria2c's rule applies: served, and without
    /// `Access-Control-Allow-Origin` a page cannot read the reply.
    ///
    /// An Origin that is the door's own loopback address (`http://` and the
    /// request's own `Host`, which names 127.0.0.1, localhost or [::1]) is
    /// not foreign: no page but one this server served has it, and
    /// WebSocket clients such as Python's websocket-client (aria2p's) send
    /// it by default.
    func refusesOrigin(of head: HTTPRequestHead) -> Bool {
        guard !hasSecret, !allowOriginAll, let origin = head.headers.first(name: "Origin") else { return false }
        return !Self.isOwnLoopbackOrigin(origin, host: head.headers.first(name: "Host"))
    }

    static func isOwnLoopbackOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, origin.lowercased() == "http://" + host.lowercased() else { return false }
        let name = host.hasPrefix("[") ? String(host.prefix(while: { $0 != "]" })) + "]"
            : String(host.prefix(while: { $0 != ":" }))
        return ["127.0.0.1", "localhost", "[::1]"].contains(name.lowercased())
    }

    /// Headers every HTTP reply carries, as aria2c sends them.
    func commonHeaders() -> HTTPHeaders {
        let date = HTTPDate.now()
        var headers = HTTPHeaders([
            ("Date", date),
            ("Expires", date),
            ("Cache-Control", "no-cache"),
        ])
        if allowOriginAll {
            headers.add(name: "Access-Control-Allow-Origin", value: "*")
        }
        return headers
    }
}
