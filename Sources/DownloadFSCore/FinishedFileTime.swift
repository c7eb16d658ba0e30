import Foundation

/// The mtime of a finished file (R40): the server's Last-Modified, or else
/// the moment the file landed in STATE/files; in whole seconds, and within
/// the range a filesystem keeps (ext4: late 1901 to 2446). The file on disk
/// gets it and `files/` shows it, so both say the same, and a forgotten
/// file (R34), shown from the disk, keeps it.
public enum FinishedFileTime {
    /// 1901-12-13T20:45:52Z, the earliest a 32-bit (and ext4's) time holds.
    static let earliest = Double(Int32.min)
    /// 2446-05-10: ext4's 34-bit seconds.
    static let latest = Double((Int64(1) << 34) - 1)

    /// `now` in whole seconds: when a file landed, as its record keeps it.
    public static func landed(_ now: Date) -> Date {
        Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
    }

    /// The mtime of a file whose server said `lastModified` (nil: it said
    /// none, or nothing readable) and that landed at `landedAt`.
    public static func modified(lastModified: String?, landedAt: Date?) -> Date? {
        guard let time = lastModified.flatMap(HeaderValue.httpDate) ?? landedAt.map(landed) else { return nil }
        return Date(timeIntervalSince1970: min(max(time.timeIntervalSince1970.rounded(.down), earliest), latest))
    }
}
