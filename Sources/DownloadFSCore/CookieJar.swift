/// Which cookies of a `load-cookies=FILE` a task keeps, and which of them
/// each connection sends (R10).
///
/// Decided here, not by curl's cookie engine: at the add the task keeps
/// only the cookies of its own hosts that have not expired — the file may
/// be a whole browser's jar, and the catalog need not hold the rest; at
/// each connection the ones that match its URL (host, path, secure,
/// expiry, `Cookie`) are the only ones handed to curl. curl gets them as
/// cookies.txt lines, not as a `Cookie:` header, so on a redirect it sends
/// only those that still match the new URL and never any to another host.
public enum CookieJar {
    /// The cookies a task with these URLs keeps at the add (`now` in seconds since the epoch).
    public static func kept(_ cookies: [Cookie], for urls: [String], now: Int64) -> [Cookie] {
        let hosts = urls.compactMap { URLParts.split($0)?.hostName }
        return cookies.filter { cookie in !cookie.isExpired(now: now) && hosts.contains(where: cookie.matchesHost) }
    }

    /// The cookies a request for `url` sends at `now`, as cookies.txt lines for curl.
    public static func lines(_ cookies: [Cookie], for url: String, now: Int64) -> [String] {
        cookies.filter { $0.matches(url: url, now: now) }.map(\.netscapeLine)
    }
}
