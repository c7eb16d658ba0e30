import Foundation

/// Fixed dates for rendering tests, parsed with Foundation so the core's own calendar code is checked independently.
enum TestDates {
    static func utc(_ iso: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let date = formatter.date(from: iso) else { fatalError("bad test date \(iso)") }
        return date
    }
}
