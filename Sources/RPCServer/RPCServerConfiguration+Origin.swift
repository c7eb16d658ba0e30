import NIOHTTP1

extension RPCServerConfiguration {
    /// R71: without a secret, a request a web page made is refused unless
    /// the user allowed every origin. With a secret the call still needs
    /// the token, so aria2c's rule applies: served, and without
    /// `Access-Control-Allow-Origin` a page cannot read the reply.
    func refusesOrigin(of head: HTTPRequestHead) -> Bool {
        guard !hasSecret, !allowOriginAll else { return false }
        let headers = head.headers
        return Self.comesFromWebPage(origin: headers.first(name: "Origin"), referer: headers.first(name: "Referer"),
                                     fetchSite: headers.first(name: "Sec-Fetch-Site"), host: headers.first(name: "Host"))
    }

    /// Whether a browser sent the request for a web page, by what browsers
    /// add and pages cannot remove or forge:
    /// - `Origin` (every cross-origin request, and every POST);
    /// - `Sec-Fetch-Site` other than `none` (a user's own typing): a
    ///   `<script>` or `<img>` that sends the GET form without `Origin` says
    ///   `cross-site`, and a page whose name was made to point at 127.0.0.1
    ///   (DNS rebinding) says `same-origin` with that name as `Host`;
    /// - a `Referer` of another origin, for browsers older than
    ///   `Sec-Fetch-*`.
    /// The door's own loopback address (`http://` and the request's own
    /// `Host`, which names 127.0.0.1, localhost or [::1]) is not a web
    /// page's: no page but one this server served has it, and WebSocket
    /// clients such as Python's websocket-client (aria2p's) send it as
    /// `Origin` by default. A client that sends none of these (curl,
    /// aria2p's HTTP, scripts) is not a page.
    static func comesFromWebPage(origin: String?, referer: String?, fetchSite: String?, host: String?) -> Bool {
        if let origin, !isOwnLoopbackOrigin(origin, host: host) { return true }
        if let site = fetchSite?.lowercased(), site != "none",
           !(site == "same-origin" && host.map(isLoopbackHost) == true) {
            return true
        }
        if let referer, !isOwnLoopbackOrigin(originOf(referer), host: host) { return true }
        return false
    }

    static func isOwnLoopbackOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, origin.lowercased() == "http://" + host.lowercased() else { return false }
        return isLoopbackHost(host)
    }

    /// A `Host` that names 127.0.0.1, localhost or [::1], with or without a port.
    static func isLoopbackHost(_ host: String) -> Bool {
        let name = host.hasPrefix("[") ? String(host.prefix(while: { $0 != "]" })) + "]"
            : String(host.prefix(while: { $0 != ":" }))
        return ["127.0.0.1", "localhost", "[::1]"].contains(name.lowercased())
    }

    /// `scheme://host[:port]` of a URL: what it shares with an `Origin`.
    static func originOf(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        return String(url[..<schemeEnd.upperBound]) + rest.prefix(while: { !"/?#".contains($0) })
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
