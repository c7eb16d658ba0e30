/// What connections are counted by for `--max-connections-per-host` (R18):
/// scheme, host and port as the URL writes them, the host lowercased. Two
/// names for one address count apart, as they do for curl's own limit.
public enum HostKey {
    public static func of(_ url: String) -> String {
        guard let parts = URLParts.split(url) else { return url }
        return "\(parts.scheme.lowercased())://\(parts.host.lowercased()):\(parts.port ?? "")"
    }

    /// The URL's host name, lowercased, without an IPv6 literal's brackets.
    public static func name(of url: String) -> String {
        URLParts.split(url)?.hostName ?? url
    }
}
