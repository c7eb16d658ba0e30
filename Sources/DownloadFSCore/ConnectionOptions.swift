/// What every connection of a task sends besides its request (R10): the
/// user's headers, Referer, User-Agent, credentials, proxy and cookies —
/// the same on each segment's connection (R18) and each mirror's (R19).
///
/// Made from the stored `TaskOptions` when an attempt starts; the engine
/// hands each value to curl as it is, and asks here for what depends on
/// the URL a connection fetches (a `*` Referer, the cookies that match it).
public struct ConnectionOptions: Sendable, Equatable {
    /// The user's `header=` lines.
    public var headers: [String]
    /// `referer=`; `*` is resolved per URL by `referer(for:)`.
    public var referer: String?
    /// nil: downloadfs's own.
    public var userAgent: String?
    /// Each replaces the matching part of credentials written in the URL
    /// (libcurl's rule); curl sends them only to the host first asked
    /// (CURLOPT_UNRESTRICTED_AUTH stays off), never after a redirect elsewhere.
    public var user: String?
    public var password: String?
    /// nil: the environment's proxy; "": none; else this one.
    public var proxy: String?
    /// The task's cookies from `load-cookies=` (already those of its hosts).
    public var cookies: [Cookie]

    public init(headers: [String] = [], referer: String? = nil, userAgent: String? = nil, user: String? = nil,
                password: String? = nil, proxy: String? = nil, cookies: [Cookie] = []) {
        self.headers = headers
        self.referer = referer
        self.userAgent = userAgent
        self.user = user
        self.password = password
        self.proxy = proxy
        self.cookies = cookies
    }

    public init(_ options: TaskOptions) {
        self.init(headers: options.headers, referer: options.referer, userAgent: options.userAgent,
                  user: options.httpUser, password: options.httpPassword, proxy: options.proxy,
                  cookies: options.cookies ?? [])
    }

    /// The Referer sent with a request for `url`: `*` is that URL, without
    /// its credentials and fragment (a Referer carries neither).
    public func referer(for url: String) -> String? {
        guard referer == "*" else { return referer }
        guard var parts = URLParts.split(url) else { return nil }
        parts.userinfo = nil
        parts.fragment = nil
        return parts.string
    }

    /// The user and password handed curl for a request of `url`: each
    /// replaces its part of a `user:password@` in the URL (libcurl's rule).
    /// A password with no user at all — neither `http-user` nor one in the
    /// URL — is not handed over (aria2 ignores it too; curl would send no
    /// basic auth without a user, and log in to FTP as anonymous).
    public func credentials(for url: String) -> (user: String?, password: String?) {
        guard user != nil || (URLParts.split(url)?.userinfo.map { !$0.isEmpty } ?? false) else { return (nil, nil) }
        return (user, password)
    }

    /// The cookies a connection to `url` hands curl at `now` (seconds since
    /// the epoch), as cookies.txt lines (`CookieJar.lines`).
    public func cookieLines(for url: String, now: Int64) -> [String] {
        cookies.isEmpty ? [] : CookieJar.lines(cookies, for: url, now: now)
    }
}
