import Foundation

/// The lines of `MOUNT/events` (R24): `TIME ID EVENT NAME`, and
/// `TIME - lost N` for a reader that fell too far behind.
///
/// TIME is seconds since the epoch with exactly three decimals
/// (`1795691116.052`): whole milliseconds, so lines sort and compare as
/// numbers, and `awk`'s or Python's `float` read them. NAME comes last
/// because it may hold spaces: `read -r time id event name` keeps it whole.
/// Lines are given without their newline; the feed adds it.
public enum EventLine {
    /// `date` as seconds since the epoch with three decimals, to the
    /// nearest millisecond: a clock reading of `…052` stored as the double
    /// `…0519999` still shows `.052`.
    public static func time(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        // Beyond Int64's range a date is not a clock reading; show the bound.
        let total = Int64(exactly: milliseconds) ?? (milliseconds < 0 ? Int64.min + 1 : Int64.max)
        let magnitude = total.magnitude
        let fraction = String(magnitude % 1000)
        let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
        return (total < 0 ? "-" : "") + "\(magnitude / 1000).\(padded)"
    }

    /// One change to task `id`: `event` is `added`, a state it entered
    /// (`queued` … `failed`), `removed`, `renamed` (`name` is the new name)
    /// or `forgotten`.
    ///
    /// A name never holds a line break (R17 drops control characters); any
    /// there would be is dropped here too, so one change stays one line.
    public static func line(time date: Date, id: Int64, event: String, name: String) -> String {
        let oneLine = name.contains(where: \.isNewline) ? String(name.filter { !$0.isNewline }) : name
        return "\(time(date)) \(id) \(event) \(oneLine)"
    }

    /// A line as a reader takes it back (aria2's notifications, `wait`):
    /// one change to a task, a `lost N` line, or anything else.
    public enum Reading: Sendable, Equatable {
        /// `TIME ID EVENT NAME`; `name` is empty when the line has none.
        case change(id: Int64, event: Substring, name: Substring)
        case lost
        case other
    }

    /// What `line` says (its newline, if any, is ignored).
    public static func read(_ line: Substring) -> Reading {
        var text = line
        while text.last?.isNewline == true { text = text.dropLast() }
        let words = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard words.count >= 3 else { return .other }
        if words[1] == "-", words[2] == "lost" { return .lost }
        guard let id = Int64(words[1]), id > 0 else { return .other }
        return .change(id: id, event: words[2], name: words.count == 4 ? words[3] : "")
    }

    /// What a reader that fell more than `EventBacklog.limit` lines behind
    /// reads instead of the `count` lines it missed.
    public static func lost(time date: Date, count: Int) -> String {
        "\(time(date)) - lost \(count)"
    }
}
