import Foundation

/// Renders the root `status` file (R21): a header, one aligned row per task, a totals line.
///
/// Columns are ID, STATE, PROGRESS, SPEED, ETA and NAME; each is at least as
/// wide as its usual content so rows line up from one read to the next, and
/// grows when a value is longer. NAME is last and unpadded, since names vary most.
public enum StatusTable {
    private static let headers = ["ID", "STATE", "PROGRESS", "SPEED", "ETA", "NAME"]
    /// Minimum widths: "downloading", "PROGRESS", "11.8 MiB/s", "2m27s".
    private static let minimumWidths = [2, 11, 8, 10, 5]

    /// Two passes over the tasks, the first for the column widths, without
    /// keeping every row's cells: at 100,000 tasks those were 60 MB more.
    public static func render(_ tasks: [TaskStatusView], now: Date) -> String {
        var widths = minimumWidths
        for task in tasks {
            let cells = paddedCells(task)
            for column in widths.indices { widths[column] = max(widths[column], cells[column].count) }
        }
        var out = line(headers, widths: widths)
        out.reserveCapacity(out.utf8.count * (tasks.count + 2))
        for task in tasks {
            let cells = paddedCells(task)
            for column in widths.indices {
                out += cells[column]
                out += String(repeating: " ", count: widths[column] - cells[column].count + 2)
            }
            out += StatusRenderer.singleLine(task.name ?? "-")
            out += "\n"
        }
        out += totals(tasks) + "\n"
        return out
    }

    /// The aligned cells of a row, all but the name.
    private static func paddedCells(_ task: TaskStatusView) -> [String] {
        [String(task.id), task.state.rawValue, task.displayProgress, task.displaySpeed, task.displayETA]
    }

    /// "total: 3 tasks (1 downloading, 2 completed), 1.2 GiB of 2.9 GiB, 11.8 MiB/s".
    ///
    /// A task whose total is unknown (a server that sent no length, or one not
    /// asked yet) counts only in the bytes done, and the line says how many
    /// there are, so "1.4 MiB of 0 B" never stands unexplained (R21):
    /// "…, 1.4 MiB of 0 B known, 1 task of unknown size, 512 KiB/s".
    public static func totals(_ tasks: [TaskStatusView]) -> String {
        var counts: [TaskState: Int] = [:]
        var done: Int64 = 0
        var known: Int64 = 0
        var unknown = 0
        var speed: Double = 0
        for task in tasks {
            counts[task.state, default: 0] += 1
            done = done.addingReportingOverflow(max(0, task.downloaded)).partialValue
            if let total = task.total {
                known = known.addingReportingOverflow(max(0, total)).partialValue
            } else {
                unknown += 1
            }
            speed += task.effectiveBytesPerSecond
        }
        var out = "total: \(tasks.count) \(tasks.count == 1 ? "task" : "tasks")"
        let perState = TaskState.allCases.compactMap { state in
            counts[state].map { "\($0) \(state.rawValue)" }
        }
        if !perState.isEmpty {
            out += " (" + perState.joined(separator: ", ") + ")"
        }
        out += ", \(Units.bytes(done)) of \(Units.bytes(known))"
        if unknown > 0 {
            out += " known, \(unknown) \(unknown == 1 ? "task" : "tasks") of unknown size"
        }
        out += ", \(Units.speed(speed))"
        return out
    }

    private static func line(_ cells: [String], widths: [Int]) -> String {
        var out = ""
        for (column, cell) in cells.enumerated() {
            if column < widths.count {
                out += cell
                out += String(repeating: " ", count: widths[column] - cell.count + 2)
            } else {
                out += cell
            }
        }
        return out + "\n"
    }
}
