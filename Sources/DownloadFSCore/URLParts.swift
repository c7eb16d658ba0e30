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
    /// Delimiters are ASCII, so they are looked for in the UTF-8 bytes, not
    /// among Characters: adding a million URLs spent a good part of its time in
    /// grapheme breaking. A byte index of an ASCII delimiter is always a
    /// valid index of the string.
    static func split(_ s: String) -> URLParts? {
        let bytes = s.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = String(s[..<colon])
        guard isValidScheme(scheme) else { return nil }
        let afterColon = bytes.index(after: colon)
        guard bytes[afterColon...].starts(with: "//".utf8) else { return nil }
        let authorityStart = bytes.index(afterColon, offsetBy: 2)
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        let authority = s[authorityStart..<authorityEnd]
        var tail = s[authorityEnd...]

        var userinfo: String?
        var hostPort = authority
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            userinfo = String(authority[..<at])
            hostPort = authority[authority.utf8.index(after: at)...]
        }

        var host: Substring
        var port: String?
        if hostPort.utf8.first == UInt8(ascii: "["), let close = hostPort.utf8.firstIndex(of: UInt8(ascii: "]")) {
            let afterClose = hostPort.utf8.index(after: close)
            host = hostPort[..<afterClose]
            let afterHost = hostPort[afterClose...]
            if afterHost.utf8.first == UInt8(ascii: ":") {
                port = String(afterHost[afterHost.utf8.index(after: afterHost.startIndex)...])
            } else if !afterHost.isEmpty {
                // Garbage after "]": keep it in the host so validation rejects it.
                host = hostPort
            }
        } else if let portColon = hostPort.utf8.lastIndex(of: UInt8(ascii: ":")) {
            host = hostPort[..<portColon]
            port = String(hostPort[hostPort.utf8.index(after: portColon)...])
        } else {
            host = hostPort
        }

        var fragment: String?
        if let hash = tail.utf8.firstIndex(of: UInt8(ascii: "#")) {
            fragment = String(tail[tail.utf8.index(after: hash)...])
            tail = tail[..<hash]
        }
        return URLParts(scheme: scheme, userinfo: userinfo, host: String(host), port: port,
                        pathAndQuery: String(tail), fragment: fragment)
    }

    /// The path alone: `pathAndQuery` up to "?".
    var path: Substring {
        if let q = pathAndQuery.utf8.firstIndex(of: UInt8(ascii: "?")) {
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
        let isLetter = { (b: UInt8) in (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }
        guard let first = s.utf8.first, isLetter(first) else { return false }
        return s.utf8.allSatisfy { b in
            isLetter(b) || (0x30...0x39).contains(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
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
