import Foundation

/// Parsers for the HTTP header values the engine acts on: Retry-After, HTTP-dates, ETags.
///
/// Hand-rolled: HTTP-dates are fixed English formats, and a locale-bound
/// DateFormatter is both slower and a classic source of wrong parses.
public enum HeaderValue {
    /// Retry-After as seconds from `now`: delta-seconds or an HTTP-date (a past date gives 0); nil if unreadable.
    public static func retryAfter(_ v: String, now: Date) -> Double? {
        let text = v.trimmingSpacesAndTabs()
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
            return Double(text)
        }
        guard let date = httpDate(text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Parses IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
    /// and asctime (`Sun Nov  6 08:49:37 1994`).
    ///
    /// Read as bytes: every move into `files/` and every `stat` of a
    /// finished file parses its Last-Modified (R40), and the version over
    /// `String` tokens was 10 of the 25 user-space samples of the workers'
    /// moves (perf, 1,000 × 64 KiB).
    public static func httpDate(_ v: String) -> Date? {
        var text = v
        return text.withUTF8(httpDate(bytes:))
    }

    private typealias Token = Slice<UnsafeBufferPointer<UInt8>>

    private static func httpDate(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        // The runs of bytes between spaces and tabs; no form has more than six.
        var tokens: [Token] = []
        tokens.reserveCapacity(7)
        var start: Int?
        for i in 0...bytes.count {
            if i == bytes.count || bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") {
                if let first = start {
                    tokens.append(bytes[first..<i])
                    if tokens.count > 6 { return nil }
                }
                start = nil
            } else if start == nil {
                start = i
            }
        }
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        if tokens.count == 6, tokens[0].last == UInt8(ascii: ","), tokens[5].elementsEqual("GMT".utf8) {
            // IMF-fixdate
            day = number(tokens[1], digits: 1...2)
            month = monthNumber(tokens[2])
            year = number(tokens[3], digits: 4...4)
            time = clock(tokens[4])
        } else if tokens.count == 4, tokens[0].last == UInt8(ascii: ","), tokens[3].elementsEqual("GMT".utf8) {
            // RFC 850: dd-Mon-yy
            let parts = tokens[1].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            if parts.count == 3 {
                day = number(parts[0], digits: 1...2)
                month = monthNumber(parts[1])
                if let yy = number(parts[2], digits: 2...2) {
                    year = yy < 70 ? 2000 + yy : 1900 + yy
                } else {
                    year = number(parts[2], digits: 4...4)
                }
            }
            time = clock(tokens[2])
        } else if tokens.count == 5 {
            // asctime
            month = monthNumber(tokens[1])
            day = number(tokens[2], digits: 1...2)
            time = clock(tokens[3])
            year = number(tokens[4], digits: 4...4)
        }
        guard let day, let month, let year, let time,
              day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month) else { return nil }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + time.0 * 3600 + time.1 * 60 + time.2
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for seconds since
    /// 1970: how an FTP server's MDTM is stored beside HTTP's Last-Modified.
    public static func httpDate(epochSeconds: Int64) -> String {
        let seconds = Int(epochSeconds)
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let inDay = seconds - days * 86400
        let (year, month, day) = CivilCalendar.civilFromDays(days)
        let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][((days % 7) + 7) % 7]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(weekday), \(two(day)) \(months[month - 1].capitalized) \(year) "
            + "\(two(inDay / 3600)):\(two(inDay / 60 % 60)):\(two(inDay % 60)) GMT"
    }

    /// True for a strong entity tag, `"xyz"`; false for a weak `W/"xyz"` or a malformed value.
    public static func isStrongETag(_ v: String) -> Bool {
        let text = v.trimmingSpacesAndTabs()
        return text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"")
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// 1–12 for a month's three letters, any case.
    private static func monthNumber(_ token: Token) -> Int? {
        guard token.count == 3 else { return nil }
        let lower = token.lazy.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        return months.firstIndex { $0.utf8.elementsEqual(lower) }.map { $0 + 1 }
    }

    /// The decimal number `token` spells with a count of ASCII digits in `digits`.
    private static func number(_ token: Token, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(token.count) else { return nil }
        var value = 0
        for byte in token {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `hh:mm:ss`, two digits each.
    private static func clock(_ token: Token) -> (Int, Int, Int)? {
        let at = token.startIndex
        guard token.count == 8, token[at + 2] == UInt8(ascii: ":"), token[at + 5] == UInt8(ascii: ":"),
              let h = number(token[at..<at + 2], digits: 2...2), let m = number(token[at + 3..<at + 5], digits: 2...2),
              let sec = number(token[at + 6..<at + 8], digits: 2...2),
              h < 24, m < 60, sec < 61 else { return nil }
        return (h, m, sec)
    }
}
