import NIOHTTP1

extension RPCServerConfiguration {
    /// R71: without a secret, a request that says it comes from a web page
    /// (it carries `Origin`, which browsers add and pages cannot remove) is
    /// refused unless the user allowed every origin. With a secret the call
    /// still needs the token, so aria2c's rule applies: served, and without
    /// `Access-Control-Allow-Origin` a page cannot read the reply.
    func refusesOrigin(of head: HTTPRequestHead) -> Bool {
        !hasSecret && !allowOriginAll && head.headers.contains(name: "Origin")
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
