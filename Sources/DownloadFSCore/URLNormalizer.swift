/// Canonical form of a URL for "same URL, same task" (R13) and a credential-free form for xattrs (R41).
///
/// Only what cannot change the resource is touched — scheme and host case,
/// a default port, the fragment — so two URLs that compare equal here really
/// name the same download; everything else is kept byte for byte.
public enum URLNormalizer {
    /// Scheme and host lower-cased, default port dropped (http 80, https 443, ftp 21, ftps 990), fragment dropped.
    ///
    /// A string that is not `scheme://…` only loses its fragment.
    public static func normalize(_ url: String) -> String { normalize(url, split: URLParts.split(url)) }

    /// `normalize` of `url` already split (adding a URL splits it once for
    /// its key and its name).
    static func normalize(_ url: String, split: URLParts?) -> String {
        guard var parts = split else {
            if let hash = url.firstIndex(of: "#") { return String(url[..<hash]) }
            return url
        }
        // Most URLs are normal already: kept as they are, not rebuilt.
        let lowerASCII = { (text: String) in !text.utf8.contains { $0 >= 0x80 || (0x41...0x5A).contains($0) } }
        let defaultPort = parts.port.flatMap(Int.init).map { $0 == URLParts.defaultPort(forScheme: parts.scheme) } ?? false
        if parts.fragment == nil, !defaultPort, lowerASCII(parts.scheme), lowerASCII(parts.host) { return url }
        parts.scheme = parts.scheme.lowercased()
        parts.host = parts.host.lowercased()
        if let port = parts.port, let number = Int(port),
           number == URLParts.defaultPort(forScheme: parts.scheme) {
            parts.port = nil
        }
        parts.fragment = nil
        return parts.string
    }

    /// The URL with its password shown as `***` (`ftp://user:***@host/…`), for
    /// everything the mount and its logs show (R6); the catalog and the
    /// on-complete hook keep the real one. A user name alone is kept.
    public static func maskingPassword(_ url: String) -> String {
        // No `@`, no userinfo: most URLs, and a status shows one at every read.
        guard url.utf8.contains(UInt8(ascii: "@")) else { return url }
        guard var parts = URLParts.split(url), let userinfo = parts.userinfo,
              let colon = userinfo.firstIndex(of: ":") else { return url }
        parts.userinfo = userinfo[..<colon] + ":***"
        return parts.string
    }

    /// The URL without `user:pass@`; everything else verbatim.
    public static func strippingCredentials(_ url: String) -> String {
        guard var parts = URLParts.split(url), parts.userinfo != nil else { return url }
        parts.userinfo = nil
        return parts.string
    }
}
