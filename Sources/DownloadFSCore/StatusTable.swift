import Foundation

/// Renders the root `status` file (R21): a header, one aligned row per task,
/// a totals line — a row at a time, so a table of a million tasks streams
/// from its first line and never sits in memory whole.
///
/// Columns are ID, STATE, PROGRESS, SPEED and ETA, each as wide as the
/// longest value it can hold (the ID column as the highest id), so every
/// row lines up without looking at the others first; NAME is last and
/// unpadded, since names vary most. An ETA of 100 hours or more widens its
/// own row: 6 columns keep a row with a progress bar within 80 columns
/// (`downloadfs status`).
public struct StatusTable: Sendable {
    private static let headers = ["ID", "STATE", "PROGRESS", "SPEED", "ETA", "NAME"]
    /// "downloading", "PROGRESS", "1023.9 KiB/s", "99h59m".
    private static let fixedWidths = [11, 8, 12, 6]

    private let widths: [Int]
    private var totals = StatusTotals()

    /// A table whose ids are at most `highestID`.
    public init(highestID: Int64) {
        widths = [max(2, String(max(0, highestID)).count)] + Self.fixedWidths
    }

    public var header: String { Self.line(Self.headers, widths: widths) }

    /// The task's row, counted in the totals.
    public mutating func row(_ task: TaskStatusView) -> String {
        totals.count(task)
        let cells = [String(task.id), task.state.rawValue, task.displayProgress, task.displaySpeed, task.displayETA,
                     StatusRenderer.singleLine(task.name ?? "-")]
        return Self.line(cells, widths: widths)
    }

    /// The last line, over every row given so far.
    public var totalsLine: String { totals.line + "\n" }

    /// The whole table at once.
    public static func render(_ tasks: [TaskStatusView], now: Date) -> String {
        var table = StatusTable(highestID: tasks.map(\.id).max() ?? 0)
        var out = table.header
        for task in tasks { out += table.row(task) }
        return out + table.totalsLine
    }

    /// The totals line of `tasks` alone.
    public static func totals(_ tasks: [TaskStatusView]) -> String {
        var totals = StatusTotals()
        for task in tasks { totals.count(task) }
        return totals.line
    }

    private static func line(_ cells: [String], widths: [Int]) -> String {
        var out = ""
        for (column, cell) in cells.enumerated() {
            out += cell
            if column < widths.count { out += String(repeating: " ", count: max(0, widths[column] - cell.count) + 2) }
        }
        return out + "\n"
    }
}
