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
    public var referer: String? {
        get { self[rare: \.referer] }
        set { self[rare: \.referer] = newValue }
    }
    /// `user-agent=TEXT`, sent instead of downloadfs's own User-Agent.
    public var userAgent: String? {
        get { self[rare: \.userAgent] }
        set { self[rare: \.userAgent] = newValue }
    }
    /// `http-user=NAME`: HTTP basic auth's user, and FTP's login.
    public var httpUser: String? {
        get { self[rare: \.httpUser] }
        set { self[rare: \.httpUser] = newValue }
    }
    /// `http-passwd=SECRET`: its password. Kept only here, in the catalog
    /// (0600, R6): never shown in `status`, `url`, a log or an xattr.
    public var httpPassword: String? {
        get { self[rare: \.httpPassword] }
        set { self[rare: \.httpPassword] = newValue }
    }
    /// `all-proxy=URL`: this task's proxy, instead of the environment's;
    /// "" (written `all-proxy=`) goes direct whatever the environment says.
    public var proxy: String? {
        get { self[rare: \.proxy] }
        set { self[rare: \.proxy] = newValue }
    }
    /// The cookies of `load-cookies=FILE` for this task's hosts, read and
    /// parsed at the add (the file may be gone when the task resumes); nil
    /// without the option.
    public var cookies: [Cookie]? {
        get { self[rare: \.cookies] }
        set { self[rare: \.cookies] = newValue }
    }

    /// `dir=FOLDER` (R35), already checked and cleaned (`FilesPath`): the
    /// folder under `files/` the file goes to. Read once, when the task is
    /// added, into the task's place (`DownloadTask.name`), which moves when
    /// its folder does; so never stored.
    public var folder: String? {
        get { self[rare: \.folder] }
        set { self[rare: \.folder] = newValue }
    }

    /// The connection options above, which few tasks have, boxed: a task
    /// without them pays one reference instead of six optional fields
    /// (about 90 bytes a task, set or not: 42 MiB more at a million tasks).
    private var rare: RareBox?

    private struct Rare: Sendable, Equatable {
        var referer: String?
        var userAgent: String?
        var httpUser: String?
        var httpPassword: String?
        var proxy: String?
        var cookies: [Cookie]?
        var folder: String?
    }

    private final class RareBox: Sendable, Equatable {
        let value: Rare
        init(_ value: Rare) { self.value = value }
        static func == (a: RareBox, b: RareBox) -> Bool { a.value == b.value }
    }

    /// One boxed option; setting it makes a new box (or none, when every
    /// one is nil again).
    private subscript<Value>(rare path: WritableKeyPath<Rare, Value?>) -> Value? {
        get { rare?.value[keyPath: path] }
        set { changeRare { $0[keyPath: path] = newValue } }
    }

    private mutating func changeRare(_ change: (inout Rare) -> Void) {
        var value = rare?.value ?? Rare()
        change(&value)
        rare = value == Rare() ? nil : RareBox(value)
    }

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
        changeRare {
            $0 = Rare(referer: referer, userAgent: userAgent, httpUser: httpUser, httpPassword: httpPassword,
                      proxy: proxy, cookies: cookies)
        }
    }

    // The stored JSON keeps every option as a key of its own, the boxed ones
    // too, as before they were boxed.
    private enum CodingKeys: String, CodingKey {
        case out, headers, checksum, maxDownloadLimit, split, mirrors, referer, userAgent, httpUser, httpPassword, proxy,
             cookies
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(out: try c.decodeIfPresent(String.self, forKey: .out),
                  headers: try c.decode([String].self, forKey: .headers),
                  checksum: try c.decodeIfPresent(Checksum.self, forKey: .checksum),
                  maxDownloadLimit: try c.decodeIfPresent(Int64.self, forKey: .maxDownloadLimit),
                  split: try c.decodeIfPresent(Int.self, forKey: .split),
                  mirrors: try c.decodeIfPresent([String].self, forKey: .mirrors),
                  referer: try c.decodeIfPresent(String.self, forKey: .referer),
                  userAgent: try c.decodeIfPresent(String.self, forKey: .userAgent),
                  httpUser: try c.decodeIfPresent(String.self, forKey: .httpUser),
                  httpPassword: try c.decodeIfPresent(String.self, forKey: .httpPassword),
                  proxy: try c.decodeIfPresent(String.self, forKey: .proxy),
                  cookies: try c.decodeIfPresent([Cookie].self, forKey: .cookies))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(out, forKey: .out)
        try c.encode(headers, forKey: .headers)
        try c.encodeIfPresent(checksum, forKey: .checksum)
        try c.encodeIfPresent(maxDownloadLimit, forKey: .maxDownloadLimit)
        try c.encodeIfPresent(split, forKey: .split)
        try c.encodeIfPresent(mirrors, forKey: .mirrors)
        try c.encodeIfPresent(referer, forKey: .referer)
        try c.encodeIfPresent(userAgent, forKey: .userAgent)
        try c.encodeIfPresent(httpUser, forKey: .httpUser)
        try c.encodeIfPresent(httpPassword, forKey: .httpPassword)
        try c.encodeIfPresent(proxy, forKey: .proxy)
        try c.encodeIfPresent(cookies, forKey: .cookies)
    }
}
