/// A URL split into the pieces downloadfs reasons about, without changing any of them.
///
/// Hand-rolled rather than Foundation's `URL` so that normalising (R13) and
/// credential stripping (R41) keep every other byte verbatim, and so the same
/// split is used by validation, naming and normalisation.
/// Form: `scheme ":" "//" [userinfo "@"] host [":" port] [path] ["?" query] ["#" fragment]`.
struct URLParts: Sendable, Equatable {
    var scheme: String
    var userinfo: String?
    /// The host as written; IPv6 literals keep their brackets.
    var host: String
    /// The port text after ":" (possibly empty), nil when there is no ":".
    var port: String?
    /// Path and query, everything after the authority up to "#".
    var pathAndQuery: String
    /// The fragment text after "#", nil when there is no "#".
    var fragment: String?

    /// The host lowercased, without an IPv6 literal's brackets: the name
    /// that connections, proxies and certificates are about.
    var hostName: String { host.lowercased().filter { $0 != "[" && $0 != "]" } }

    /// Splits `s`; nil when it has no `scheme://` prefix.
    static func split(_ s: String) -> URLParts? {
        guard let colon = s.firstIndex(of: ":") else { return nil }
        let scheme = String(s[..<colon])
        guard isValidScheme(scheme) else { return nil }
        let afterColon = s[s.index(after: colon)...]
        guard afterColon.hasPrefix("//") else { return nil }
        let authorityStart = afterColon.index(afterColon.startIndex, offsetBy: 2)
        let rest = s[authorityStart...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var tail = rest[authorityEnd...]

        var userinfo: String?
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userinfo = String(authority[..<at])
            hostPort = authority[authority.index(after: at)...]
        }

        var host: Substring
        var port: String?
        if hostPort.hasPrefix("["), let close = hostPort.firstIndex(of: "]") {
            host = hostPort[...close]
            let afterHost = hostPort[hostPort.index(after: close)...]
            if afterHost.hasPrefix(":") {
                port = String(afterHost.dropFirst())
            } else if !afterHost.isEmpty {
                // Garbage after "]": keep it in the host so validation rejects it.
                host = hostPort
            }
        } else if let portColon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<portColon]
            port = String(hostPort[hostPort.index(after: portColon)...])
        } else {
            host = hostPort
        }

        var fragment: String?
        if let hash = tail.firstIndex(of: "#") {
            fragment = String(tail[tail.index(after: hash)...])
            tail = tail[..<hash]
        }
        return URLParts(scheme: scheme, userinfo: userinfo, host: String(host), port: port,
                        pathAndQuery: String(tail), fragment: fragment)
    }

    /// The path alone: `pathAndQuery` up to "?".
    var path: Substring {
        if let q = pathAndQuery.firstIndex(of: "?") {
            return pathAndQuery[..<q]
        }
        return pathAndQuery[...]
    }

    /// Reassembles the URL from its parts.
    var string: String {
        var out = scheme + "://"
        if let userinfo { out += userinfo + "@" }
        out += host
        if let port { out += ":" + port }
        out += pathAndQuery
        if let fragment { out += "#" + fragment }
        return out
    }

    /// RFC 3986: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isValidScheme(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return s.unicodeScalars.allSatisfy { c in
            c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "+" || c == "-" || c == ".")
        }
    }

    /// Default port of the schemes downloadfs accepts.
    static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "http": return 80
        case "https": return 443
        case "ftp": return 21
        case "ftps": return 990
        default: return nil
        }
    }
}
