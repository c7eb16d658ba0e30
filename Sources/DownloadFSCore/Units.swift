import Foundation

/// Human units for status output (R20, R21): binary sizes, speeds, durations, percentages, UTC times.
///
/// All formatting is done by hand, not with NumberFormatter or DateFormatter,
/// so output never depends on the locale and the `status` hot path allocates little.
public enum Units {
    private static let sizeUnits = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// "512 B", "1.5 KiB", "11.8 MiB", "2.9 GiB", "1.2 TiB": one decimal above bytes.
    public static func bytes(_ n: Int64) -> String {
        scaled(Double(max(0, n)), units: sizeUnits, suffix: "")
    }

    /// "0 B/s", "512 B/s", "11.8 MiB/s", "1.0 GiB/s"; GiB/s is the largest unit.
    public static func speed(_ bytesPerSecond: Double) -> String {
        let value = bytesPerSecond.isFinite ? max(0, bytesPerSecond) : 0
        return scaled(value, units: Array(sizeUnits.prefix(4)), suffix: "/s")
    }

    /// "45s", "2m27s", "1h02m", "26h05m"; partial seconds round up; 0 (or less) → "0s".
    public static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0s" }
        let total = seconds >= 3.6e15 ? Int(3.6e15) : Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m\(twoDigits(total % 60))s" }
        return "\(total / 3600)h\(twoDigits(total % 3600 / 60))m"
    }

    /// "42.1%" rounded to one decimal, but never "100.0%" before every byte is in.
    ///
    /// "-" when the total is unknown; a known total of 0 is "100.0%".
    public static func progress(downloaded: Int64, total: Int64?) -> String {
        guard let total else { return "-" }
        guard total > 0, downloaded < total else { return "100.0%" }
        let done = max(0, downloaded)
        // Tenths of a percent, rounded half up, in integer arithmetic: no 0.421 * 1000 = 420.999.
        let product = done.multipliedFullWidth(by: 2000)
        let (quotient, _) = total.dividingFullWidth(product)
        let tenths = min((quotient + 1) / 2, 999)
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// "2026-11-21T05:30:12Z": UTC, whole seconds.
    public static func timestamp(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (year, month, day) = CivilCalendar.civilFromDays(days)
        let yearText = year >= 0 && year < 10000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(twoDigits(month))-\(twoDigits(day))T\(twoDigits(secondOfDay / 3600)):\(twoDigits(secondOfDay % 3600 / 60)):\(twoDigits(secondOfDay % 60))Z"
    }

    private static func scaled(_ value: Double, units: [String], suffix: String) -> String {
        if value.rounded() < 1024 {
            return "\(Int(value.rounded())) B\(suffix)"
        }
        var v = value / 1024
        var index = 1
        while index < units.count - 1 && (v * 10).rounded() >= 10240 {
            v /= 1024
            index += 1
        }
        let tenths = (v * 10).rounded()
        guard tenths < 9.2e18 else { return "\(Int64.max) \(units[index])\(suffix)" }
        let t = Int64(tenths)
        return "\(t / 10).\(t % 10) \(units[index])\(suffix)"
    }

    private static func twoDigits(_ n: Int) -> String {
        n < 10 ? "0\(n)" : "\(n)"
    }
}
