/// One cookie of a Netscape/Mozilla cookies.txt (`load-cookies=FILE`, R10),
/// as stored with its task and matched against each URL asked.
///
/// Matching follows the file's own rules, which are curl's and aria2's too:
/// the include-subdomains flag decides whether `domain` covers its
/// subdomains (a leading dot in the file is dropped, the flag is what
/// counts); an IP address only ever matches itself; the path matches as a
/// prefix on a `/` boundary (RFC 6265 §5.1.4); a secure cookie goes only
/// over https; `expires` 0 is a session cookie, kept, and a past time is
/// an expired cookie, never sent.
public struct Cookie: Sendable, Equatable, Codable {
    /// Lower-cased, without a leading dot.
    public var domain: String
    public var includeSubdomains: Bool
    public var path: String
    public var secure: Bool
    /// Seconds since the epoch; 0 for a session cookie.
    public var expires: Int64
    public var name: String
    public var value: String
    /// The line carried `#HttpOnly_` (kept so the line given to curl says the same).
    public var httpOnly: Bool

    public init(domain: String, includeSubdomains: Bool, path: String = "/", secure: Bool = false, expires: Int64 = 0,
                name: String, value: String, httpOnly: Bool = false) {
        self.domain = domain
        self.includeSubdomains = includeSubdomains
        self.path = path
        self.secure = secure
        self.expires = expires
        self.name = name
        self.value = value
        self.httpOnly = httpOnly
    }

    /// True once `expires` has passed (`now` in seconds since the epoch); a session cookie never expires here.
    public func isExpired(now: Int64) -> Bool {
        expires != 0 && expires <= now
    }

    /// Whether the cookie belongs to `host` (lower-cased, no brackets):
    /// the domain itself, or with the flag set one of its subdomains — never
    /// for an IP address, which only matches exactly.
    public func matchesHost(_ host: String) -> Bool {
        if host == domain { return true }
        guard includeSubdomains, !Cookie.isIPAddress(host) else { return false }
        return host.hasSuffix("." + domain)
    }

    /// RFC 6265 §5.1.4: the cookie's path is the request's, or a prefix of it
    /// ending at a `/` (`/docs` matches `/docs/a` and `/docs`, not `/docsx`).
    public func matchesPath(_ requestPath: String) -> Bool {
        if requestPath == path { return true }
        guard requestPath.hasPrefix(path) else { return false }
        return path.hasSuffix("/") || requestPath.dropFirst(path.count).first == "/"
    }

    /// Whether it is sent with a request for `url` at `now`.
    public func matches(url: String, now: Int64) -> Bool {
        guard let parts = URLParts.split(url) else { return false }
        let scheme = parts.scheme.lowercased()
        guard scheme == "http" || scheme == "https" else { return false }
        if secure && scheme != "https" { return false }
        let path = parts.path.isEmpty ? "/" : String(parts.path)
        return !isExpired(now: now) && matchesHost(parts.hostName) && matchesPath(path)
    }

    /// The cookie as a cookies.txt line (what curl's CURLOPT_COOKIELIST takes).
    public var netscapeLine: String {
        let flag: (Bool) -> String = { $0 ? "TRUE" : "FALSE" }
        let shownDomain = includeSubdomains ? "." + domain : domain
        return [(httpOnly ? "#HttpOnly_" : "") + shownDomain, flag(includeSubdomains), path, flag(secure),
                String(expires), name, value].joined(separator: "\t")
    }

    /// Dotted IPv4 or an IPv6 address (a colon never appears in a domain name).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }
}
