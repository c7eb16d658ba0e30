import Foundation
import Glibc

/// Renders MOUNT/status for people: a progress bar in front of each task
/// row. On a terminal it fits the window: lines are cut to its width, and
/// when the name would get fewer than `readableName` columns the bar, then
/// the ETA, then the SPEED column make room (a 60-column window still shows
/// names). `status --watch` also fits its height: the rows that matter
/// most (downloading first, completed last) are kept, in id order, and one
/// line says how many are not shown. Otherwise lines are whole (plain
/// lines for pipes and scripts, no escape codes).
enum StatusScreen {
    static let barWidth = 12
    static let readableName = 16
    /// What gives way, in order, when names would be unreadable.
    private static let optionalColumns = ["ETA", "SPEED"]

    /// The terminal's columns and rows (80×24 when stdout is not one).
    static func terminalSize() -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0 else { return (80, 24) }
        return (size.ws_col > 0 ? Int(size.ws_col) : 80, size.ws_row > 0 ? Int(size.ws_row) : 24)
    }

    /// `width`: cut to this many columns (nil: whole lines, no bars are
    /// dropped). `height`: at most this many lines, counting the line the
    /// cursor rests on after the last newline (nil: every task).
    static func render(table: String, width: Int?, height: Int? = nil) -> String {
        var lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        guard lines.count >= 2 else { return table }
        let header = lines[0], totals = lines[lines.count - 1]
        var rows = Array(lines[1..<(lines.count - 1)])
        var hidden = 0
        if let height {
            // Header, totals, the "more" line and the cursor's line.
            let room = max(1, height - 4)
            if rows.count > room + 1 {
                hidden = rows.count - room
                rows = mostImportant(rows, room)
            }
        }
        let columns = StatusColumns(header: header)
        var showBar = true
        var dropped: [String] = []
        if let width {
            var optional = optionalColumns[...]
            while columns.nameStart(without: dropped) + (showBar ? barWidth + 3 : 0) + readableName > width {
                if showBar {
                    showBar = false
                } else if let next = optional.popFirst() {
                    dropped.append(next)
                } else {
                    break
                }
            }
        }
        let pad = showBar ? String(repeating: " ", count: barWidth + 3) : ""
        var out = [pad + columns.cut(header, dropping: dropped)]
        for row in rows {
            let bar = showBar ? self.bar(percent(row)) + " " : ""
            out.append(bar + columns.cut(row, dropping: dropped))
        }
        if hidden > 0 { out.append("… \(hidden) more \(hidden == 1 ? "task" : "tasks") not shown (counted below)") }
        out.append(totals)
        if let width { out = out.map { fit($0, width) } }
        return out.joined(separator: "\n") + "\n"
    }

    /// The line cut to `width` columns, ending in "…" when something was cut
    /// (the name is last, so that is what loses its tail).
    static func fit(_ line: String, _ width: Int) -> String {
        line.count <= width ? line : String(line.prefix(max(0, width - 1))) + "…"
    }

    /// "[#####.......]"; "[???????????]" when the total is unknown.
    static func bar(_ percent: Double?) -> String {
        guard let percent else { return "[" + String(repeating: "?", count: barWidth) + "]" }
        let filled = max(0, min(barWidth, Int((percent / 100 * Double(barWidth)).rounded(.down))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
    }

    /// Cell `index` of a task row: ID, STATE and PROGRESS (0, 1, 2) never
    /// hold a space; the name, which may, comes last.
    private static func cell(_ row: String, _ index: Int) -> Substring? {
        let fields = row.split(separator: " ", maxSplits: index + 1, omittingEmptySubsequences: true)
        return index < fields.count ? fields[index] : nil
    }

    /// The PROGRESS cell of a task row ("45.2%"), nil when it has none ("-").
    private static func percent(_ row: String) -> Double? {
        guard let progress = cell(row, 2), progress.hasSuffix("%") else { return nil }
        return Double(progress.dropLast())
    }

    /// `count` of `rows`, the busiest first by state, shown in id order.
    private static func mostImportant(_ rows: [String], _ count: Int) -> [String] {
        let rank = ["downloading": 0, "verifying": 0, "retrying": 1, "queued": 2, "paused": 3, "failed": 4]
        func rankOf(_ row: String) -> Int { cell(row, 1).flatMap { rank[String($0)] } ?? 5 }
        let kept = rows.indices.sorted { (rankOf(rows[$0]), $0) < (rankOf(rows[$1]), $1) }.prefix(count)
        return kept.sorted().map { rows[$0] }
    }
}
