/// The proxy libcurl takes for a URL from the environment it reads
/// (`http_proxy`, `https_proxy`, `ftp_proxy`, `all_proxy`, `no_proxy`), so a
/// failure to reach it can say it was the proxy (R55). downloadfs sets no
/// proxy itself: this only names the one curl uses, by curl's rules —
/// `no_proxy` first (`*`, or hosts and domains, a leading dot allowed),
/// then the scheme's variable (lowercase; for schemes other than http the
/// uppercase one too, since `HTTP_PROXY` can be set by a CGI request), then
/// `all_proxy` / `ALL_PROXY`.
public enum ProxyChoice {
    /// The proxy's address as the user wrote it minus scheme and password
    /// (`127.0.0.1:3128`), or nil when the URL goes direct.
    public static func proxy(for url: String, environment: [String: String]) -> String? {
        guard let parts = URLParts.split(url) else { return nil }
        let scheme = parts.scheme.lowercased()
        func value(_ name: String) -> String? { EnvironmentSetting.value(name, in: environment) }
        let host = parts.hostName
        if let list = value("no_proxy") ?? value("NO_PROXY"), bypasses(host, list) { return nil }
        let chosen = value("\(scheme)_proxy") ?? (scheme == "http" ? nil : value("\(scheme.uppercased())_PROXY"))
            ?? value("all_proxy") ?? value("ALL_PROXY")
        return chosen.map(address)
    }

    /// The proxy a request for `url` goes through and where it was set: the
    /// task's `all-proxy` when it has one ("" goes direct, R10), else the
    /// environment's, by curl's rules.
    public static func proxy(for url: String, option: String?,
                             environment: [String: String]) -> (address: String, source: ProxySource)? {
        if let option {
            return option.isEmpty ? nil : (address(option), .option)
        }
        return proxy(for: url, environment: environment).map { ($0, .environment) }
    }

    /// Whether `no_proxy`'s `list` names `host` or one of its domains.
    static func bypasses(_ host: String, _ list: String) -> Bool {
        for item in list.split(whereSeparator: { $0 == "," || $0 == " " }) {
            var entry = item.lowercased()
            if entry == "*" { return true }
            if entry.hasPrefix(".") { entry.removeFirst() }
            entry.removeAll { $0 == "[" || $0 == "]" }
            if entry.isEmpty { continue }
            if host == entry || host.hasSuffix("." + entry) { return true }
        }
        return false
    }

    /// `http://user:secret@proxy:3128/` → `proxy:3128`.
    static func address(_ value: String) -> String {
        var rest = Substring(value)
        if let range = rest.range(of: "://") { rest = rest[range.upperBound...] }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        return String(rest)
    }
}
