/// Parses a Netscape/Mozilla cookies.txt, the file `load-cookies=FILE` names (R10).
///
/// One cookie per line, seven TAB-separated fields: domain,
/// include-subdomains (`TRUE`/`FALSE`), path, secure (`TRUE`/`FALSE`),
/// expiry (seconds since the epoch, 0 for a session cookie), name, value —
/// six fields is a cookie with an empty value, as curl reads it. Lines
/// starting with `#` are comments, except `#HttpOnly_` before a domain
/// (curl's and Firefox's mark of an HttpOnly cookie); blank lines are
/// skipped; a final CR and a leading byte-order mark are dropped. A line
/// that is none of these is malformed: skipped, as curl and aria2 skip it,
/// and reported so a file that holds no cookie at all can be refused.
public enum NetscapeCookies {
    /// What one file held.
    public struct Parsed: Sendable, Equatable {
        public var cookies: [Cookie]
        /// Malformed lines: their 1-based number and why.
        public var malformed: [(line: Int, reason: String)]

        public static func == (a: Parsed, b: Parsed) -> Bool {
            a.cookies == b.cookies && a.malformed.map(\.line) == b.malformed.map(\.line)
                && a.malformed.map(\.reason) == b.malformed.map(\.reason)
        }
    }

    static let httpOnlyPrefix = "#HttpOnly_"

    public static func parse(_ text: String) -> Parsed {
        var parsed = Parsed(cookies: [], malformed: [])
        var number = 0
        // A byte-order mark some editors write is not part of the first line.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        // "\r\n" is one Character to Swift: split on both.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            var httpOnly = false
            if line.hasPrefix(httpOnlyPrefix) {
                httpOnly = true
                line = line.dropFirst(httpOnlyPrefix.count)
            } else if line.hasPrefix("#") {
                continue
            }
            switch cookie(line, httpOnly: httpOnly) {
            case .success(let cookie): parsed.cookies.append(cookie)
            case .failure(let problem): parsed.malformed.append((number, problem.reason))
            }
        }
        return parsed
    }

    struct Problem: Error { var reason: String }

    /// One cookie line without its `#HttpOnly_` prefix.
    static func cookie(_ line: Substring, httpOnly: Bool) -> Result<Cookie, Problem> {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 7 || fields.count == 6 else {
            return .failure(Problem(reason: "expected 7 TAB-separated fields, found \(fields.count)"))
        }
        var domain = fields[0].lowercased()
        while domain.hasPrefix(".") { domain.removeFirst() }
        // An IPv6 address as a URL writes it; `URLParts.hostName` has no brackets either.
        if domain.hasPrefix("["), domain.hasSuffix("]") { domain = String(domain.dropFirst().dropLast()) }
        guard !domain.isEmpty, !domain.contains(" ") else { return .failure(Problem(reason: "no domain")) }
        guard let includeSubdomains = flag(fields[1]) else {
            return .failure(Problem(reason: "include-subdomains is \"\(fields[1])\", not TRUE or FALSE"))
        }
        let path = String(fields[2])
        guard path.hasPrefix("/") else { return .failure(Problem(reason: "the path does not start with /")) }
        guard let secure = flag(fields[3]) else {
            return .failure(Problem(reason: "secure is \"\(fields[3])\", not TRUE or FALSE"))
        }
        let expiryText = fields[4]
        guard !expiryText.isEmpty, expiryText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return .failure(Problem(reason: "the expiry \"\(expiryText)\" is not a number of seconds")) }
        // Beyond Int64 is "never" for any purpose here.
        let expires = Int64(expiryText) ?? Int64.max
        let name = String(fields[5])
        guard !name.isEmpty else { return .failure(Problem(reason: "no cookie name")) }
        let value = fields.count == 7 ? String(fields[6]) : ""
        return .success(Cookie(domain: domain, includeSubdomains: includeSubdomains, path: path, secure: secure,
                               expires: expires, name: name, value: value, httpOnly: httpOnly))
    }

    private static func flag(_ field: Substring) -> Bool? {
        switch field.uppercased() {
        case "TRUE": return true
        case "FALSE": return false
        default: return nil
        }
    }
}
