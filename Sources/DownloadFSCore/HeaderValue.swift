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
    public static func httpDate(_ v: String) -> Date? {
        let tokens = v.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?
        if tokens.count == 6, tokens[0].hasSuffix(","), tokens[5] == "GMT" {
            // IMF-fixdate
            day = number(tokens[1], digits: 1...2)
            month = monthNumber(tokens[2])
            year = number(tokens[3], digits: 4...4)
            time = clock(tokens[4])
        } else if tokens.count == 4, tokens[0].hasSuffix(","), tokens[3] == "GMT" {
            // RFC 850: dd-Mon-yy
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
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

    private static func monthNumber(_ s: String) -> Int? {
        months.firstIndex(of: s.lowercased()).map { $0 + 1 }
    }

    private static func number(_ s: String, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(s.count), s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(s)
    }

    private static func clock(_ s: String) -> (Int, Int, Int)? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3,
              let h = number(parts[0], digits: 2...2), let m = number(parts[1], digits: 2...2),
              let sec = number(parts[2], digits: 2...2),
              h < 24, m < 60, sec < 61 else { return nil }
        return (h, m, sec)
    }
}
