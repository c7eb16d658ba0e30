import Foundation

/// A date as the catalog stores it: "yyyy-MM-dd HH:mm:ss.SSS" in UTC, the
/// text GRDB writes for a `Date` and reads back.
///
/// Written by hand because GRDB's shared DateFormatter cost a fifth of the
/// loop's commit time (every task row has dates, every log line one).
/// Milliseconds are rounded to the nearest, as the formatter does.
public enum StoredDate {
    /// nil outside years 0–9999, which only GRDB's formatter writes.
    public static func text(_ date: Date) -> String? {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, milli) = floorDivide(millis, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86400)
        let (year, month, day) = CivilCalendar.civilFromDays(Int(days))
        guard (0...9999).contains(year) else { return nil }
        let hour = Int(secondOfDay / 3600), minute = Int(secondOfDay % 3600 / 60), second = Int(secondOfDay % 60)
        return String(unsafeUninitializedCapacity: 23) { (out: UnsafeMutableBufferPointer<UInt8>) -> Int in
            var at = 0
            func put(_ value: Int, digits: Int) {
                var v = value
                for i in stride(from: digits - 1, through: 0, by: -1) {
                    out[at + i] = UInt8(0x30 + v % 10)
                    v /= 10
                }
                at += digits
            }
            func put(_ byte: UInt8) {
                out[at] = byte
                at += 1
            }
            put(year, digits: 4); put(0x2D); put(month, digits: 2); put(0x2D); put(day, digits: 2); put(0x20)
            put(hour, digits: 2); put(0x3A); put(minute, digits: 2); put(0x3A); put(second, digits: 2); put(0x2E)
            put(Int(milli), digits: 3)
            return at
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a >= 0 ? a / b : (a - b + 1) / b
        return (q, a - q * b)
    }
}
