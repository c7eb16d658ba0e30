/// Applies one `key=value` option line of an aria2 input file to a URL's options (R10, R11).
///
/// Kept apart from the line splitting in `InputParser` so each option's
/// grammar and its rejection sentence sit in one place. Later values of
/// every option but `header` replace earlier ones, as in aria2; `header`
/// accumulates. A refusal never repeats an `http-passwd` value, nor the
/// password of an `all-proxy` URL (R6).
public enum InputOptionLine {
    /// Every option key `apply` takes, in the order refusals and the man
    /// page list them. A unit test applies each with a good value, so no key
    /// is listed that the switch below refuses; a key the switch takes
    /// but the list lacks would be missing from the refusal sentence the
    /// `default:` branch builds from it, which the same test reads.
    public static let knownKeys = ["out", "dir", "header", "checksum", "max-download-limit", "split", "referer", "user-agent",
                            "http-user", "http-passwd", "all-proxy", "load-cookies"]

    /// The schemes `all-proxy=` takes (curl's proxy kinds); none written means http, as in aria2.
    public static let proxySchemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Applies `text` (leading blanks already removed); returns the rejection reason, or nil.
    /// `urls` are the URL line's URLs, needed only by `load-cookies` (whose
    /// file `context` reads); other callers may pass none.
    static func apply(_ text: String, to options: inout TaskOptions, urls: [String] = [],
                      context: InputContext = .noFiles) -> String? {
        // By bytes, not Characters: cheaper per line, and "=" is split on even before a combining mark.
        guard let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) else {
            return "malformed option \"\(text)\" (expected key=value)"
        }
        let key = String(text[..<equals])
        let value = String(text[text.utf8.index(after: equals)...])
        switch key {
        case "out":
            guard !value.isEmpty else { return "malformed option out: empty file name" }
            // As a `dir=` part: a name the user gave that cleans to nothing is theirs to fix (R17).
            guard !FileName.sanitizedOrEmpty(value).isEmpty else {
                return "malformed option out=\(value): it leaves no name once cleaned (R17)"
            }
            options.out = value
        case "dir":
            switch FilesPath.folder(fromOption: value) {
            case .success(let folder): options.folder = folder
            case .failure(let error): return "malformed option dir=\(value): \(error.reason)"
            }
        case "header":
            guard let header = normalizedHeader(value) else {
                return "malformed option header=\(value) (expected header=Name: value)"
            }
            options.headers.append(header)
        case "checksum":
            switch Checksum.parse(value) {
            case .success(let checksum): options.checksum = checksum
            case .failure(let error): return "malformed option checksum: \(error.reason)"
            }
        case "max-download-limit":
            do throws(ByteRateError) {
                options.maxDownloadLimit = try ByteRate.read(value)
            } catch {
                switch error {
                case .unreadable:
                    return "malformed option max-download-limit=\(value) (expected a rate like 500K, 2M or 1.5MiB)"
                case .belowSmallest, .bits:
                    return "malformed option max-download-limit: \(error.message)"
                }
            }
        case "split":
            guard let n = TaskOptions.splitCount(value) else {
                let range = TaskOptions.splitRange
                return "malformed option split=\(value) (expected a whole number from \(range.lowerBound) to \(range.upperBound))"
            }
            options.split = n
        case "referer":
            guard !value.isEmpty else { return "malformed option referer: empty (expected a URL, or * for each request's own URL)" }
            if value != "*", let reason = InputParser.validateURL(value) {
                return "malformed option referer=\(URLNormalizer.maskingPassword(value)): \(reason)"
            }
            options.referer = value
        case "user-agent":
            guard !value.isEmpty else { return "malformed option user-agent: empty" }
            options.userAgent = value
        case "http-user":
            guard !value.isEmpty else { return "malformed option http-user: empty user name" }
            guard !value.contains(":") else {
                return "malformed option http-user: a user name cannot hold \":\" (basic auth puts one between user and password)"
            }
            options.httpUser = value
        case "http-passwd":
            // Any text, "" included; never repeated in a sentence (R6).
            options.httpPassword = value
        case "all-proxy":
            if let reason = proxyProblem(value) {
                return "malformed option all-proxy=\(URLNormalizer.maskingPassword(value)): \(reason)"
            }
            options.proxy = value
        case "load-cookies":
            switch loadCookies(value, urls: urls, context: context) {
            case .success(let cookies): options.cookies = cookies
            case .failure(let problem): return "load-cookies=\(value): \(problem.reason)"
            }
        default:
            if key.isEmpty {
                return "malformed option \"\(text)\" (expected key=value)"
            }
            return "unknown option \"\(key)\" (known: \(knownKeys.joined(separator: ", ")))"
        }
        return nil
    }

    /// Why `value` is no proxy URL (`[SCHEME://][USER:PASSWORD@]HOST[:PORT][/]`), nil when it is one or "" (go direct).
    static func proxyProblem(_ value: String) -> String? {
        if value.isEmpty { return nil }
        var url = value
        if let range = value.range(of: "://") {
            let scheme = value[..<range.lowerBound].lowercased()
            guard proxySchemes.contains(scheme) else {
                return "unsupported proxy scheme \"\(value[..<range.lowerBound])\" (use \(proxySchemes.joined(separator: ", ")))"
            }
        } else {
            url = "http://" + value
        }
        guard let parts = URLParts.split(url) else { return "expected [http://][user:password@]host[:port]" }
        guard parts.pathAndQuery.isEmpty || parts.pathAndQuery == "/", parts.fragment == nil else {
            return "a proxy URL has no path (expected [http://][user:password@]host[:port])"
        }
        if parts.host.isEmpty { return "no host" }
        if parts.host.contains(where: { $0 == " " || $0 == "\t" }) { return "a space in the host" }
        if let port = parts.port {
            guard !port.isEmpty, port.utf8.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(port), (1...65535).contains(number) else {
                return "invalid port \"\(port)\" (must be a number from 1 to 65535)"
            }
        }
        return nil
    }

    /// The cookies of the cookies.txt at `path` that a task with `urls` keeps (`CookieJar.kept`).
    static func loadCookies(_ path: String, urls: [String],
                            context: InputContext) -> Result<[Cookie], InputFileProblem> {
        guard !path.isEmpty else { return .failure(InputFileProblem(reason: "no file named")) }
        guard path.hasPrefix("/") else {
            return .failure(InputFileProblem(reason: "not an absolute path (the mount does not know the writer's directory)"))
        }
        let text: String
        switch context.readFile(path) {
        case .success(let read): text = read
        case .failure(let problem): return .failure(problem)
        }
        let parsed = NetscapeCookies.parse(text)
        if parsed.cookies.isEmpty, let first = parsed.malformed.first {
            return .failure(InputFileProblem(
                reason: "not a Netscape cookies.txt: no line holds a cookie (line \(first.line): \(first.reason))"))
        }
        return .success(CookieJar.kept(parsed.cookies, for: urls, now: context.now()))
    }

    /// `Name: value` with an HTTP token name, rewritten as `Name: value` with the value trimmed; nil if malformed.
    static func normalizedHeader(_ s: String) -> String? {
        guard let colon = s.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = s[..<colon]
        guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else { return nil }
        let value = trimmingBlanks(s.unicodeScalars[s.unicodeScalars.index(after: colon)...])
        return "\(name): \(String(Substring(value)))"
    }

    /// `s` without leading and trailing spaces and tabs, scalar by scalar
    /// (`trimmingSpacesAndTabs` copies the scalars into an array: too slow for
    /// a line of 200,000 header lines, R11).
    private static func trimmingBlanks(_ s: Substring.UnicodeScalarView) -> Substring.UnicodeScalarView {
        let isBlank: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = s.firstIndex(where: { !isBlank($0) }),
              let last = s.lastIndex(where: { !isBlank($0) }) else { return s[s.startIndex..<s.startIndex] }
        return s[first...last]
    }

    /// RFC 9110 `tchar`, as a byte (a non-ASCII byte is never one).
    static func isTokenByte(_ b: UInt8) -> Bool {
        b < 0x80 && isTokenCharacter(Unicode.Scalar(b))
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ c: Unicode.Scalar) -> Bool {
        guard c.isASCII else { return false }
        if ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) { return true }
        return "!#$%&'*+-.^_`|~".unicodeScalars.contains(c)
    }
}
