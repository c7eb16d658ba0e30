/// The per-URL options of an aria2 input file that downloadfs understands (R10).
///
/// Stored with the task so a remount resumes it with the same name, headers,
/// checksum, speed limit, credentials, proxy and cookies. Every field added later is optional, so the
/// JSON stored by an older version (which lacks it) still decodes.
public struct TaskOptions: Sendable, Equatable, Codable {
    /// `out=NAME`: the file name the user asked for, unsanitised.
    public var out: String?
    /// `header=Name: value`, in the order given.
    public var headers: [String]
    /// `checksum=ALGO=HEX`.
    public var checksum: Checksum?
    /// `max-download-limit=RATE` in bytes per second; nil or 0 means none.
    public var maxDownloadLimit: Int64?
    /// `split=N`: connections for this task (R18), within `TaskOptions.splitRange`;
    /// nil means the daemon's default (`--split`, `MOUNT/ctl split N`).
    public var split: Int?
    /// The other URLs of the line after the first (R19): mirrors of the same
    /// file, in the order given. Nil (and not stored) for a task with one URL.
    public var mirrors: [String]?
    /// `referer=URL`, sent as Referer; `*` sends each request's own URL (aria2's meaning).
    public var referer: String?
    /// `user-agent=TEXT`, sent instead of downloadfs's own User-Agent.
    public var userAgent: String?
    /// `http-user=NAME`: HTTP basic auth's user, and FTP's login.
    public var httpUser: String?
    /// `http-passwd=SECRET`: its password. Kept only here, in the catalog
    /// (0600, R6): never shown in `status`, `url`, a log or an xattr.
    public var httpPassword: String?
    /// `all-proxy=URL`: this task's proxy, instead of the environment's;
    /// "" (written `all-proxy=`) goes direct whatever the environment says.
    public var proxy: String?
    /// The cookies of `load-cookies=FILE` for this task's hosts, read and
    /// parsed at the add (the file may be gone when the task resumes); nil
    /// without the option.
    public var cookies: [Cookie]?

    /// The connections a task may be given, per task or as the default (R18).
    public static let splitRange = 1...16

    /// A connection count as `split=N` and `ctl split N` write it: plain ASCII
    /// digits within `splitRange`; nil otherwise.
    ///
    /// Digits only: `Int("+4")` would take a sign, and the two places that
    /// read N should refuse the same words.
    static func splitCount(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let n = Int(text), splitRange.contains(n) else { return nil }
        return n
    }

    public init(out: String? = nil, headers: [String] = [], checksum: Checksum? = nil, maxDownloadLimit: Int64? = nil,
                split: Int? = nil, mirrors: [String]? = nil, referer: String? = nil, userAgent: String? = nil,
                httpUser: String? = nil, httpPassword: String? = nil, proxy: String? = nil, cookies: [Cookie]? = nil) {
        self.out = out
        self.headers = headers
        self.checksum = checksum
        self.maxDownloadLimit = maxDownloadLimit
        self.split = split
        self.mirrors = mirrors
        self.referer = referer
        self.userAgent = userAgent
        self.httpUser = httpUser
        self.httpPassword = httpPassword
        self.proxy = proxy
        self.cookies = cookies
    }
}
