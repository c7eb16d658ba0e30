/// The root table's last line (R21), counted row by row.
///
/// "total: 3 tasks (1 downloading, 2 completed), 1.2 GiB of 2.9 GiB, 11.8 MiB/s".
/// A task whose total is unknown (a server that sent no length, or one not
/// asked yet) counts only in the bytes done, and the line says how many
/// there are, so "1.4 MiB of 0 B" never stands unexplained:
/// "…, 1.4 MiB of 0 B known, 1 task of unknown size, 512 KiB/s".
public struct StatusTotals: Sendable {
    private var tasks = 0
    private var counts: [TaskState: Int] = [:]
    private var done: Int64 = 0
    private var known: Int64 = 0
    private var unknown = 0
    private var speed: Double = 0

    public init() {}

    public mutating func count(_ task: TaskStatusView) {
        tasks += 1
        counts[task.state, default: 0] += 1
        done = done.addingReportingOverflow(max(0, task.downloaded)).partialValue
        if let total = task.total {
            known = known.addingReportingOverflow(max(0, total)).partialValue
        } else {
            unknown += 1
        }
        speed += task.effectiveBytesPerSecond
    }

    public var line: String {
        var out = "total: \(tasks) \(tasks == 1 ? "task" : "tasks")"
        let perState = TaskState.allCases.compactMap { state in counts[state].map { "\($0) \(state.rawValue)" } }
        if !perState.isEmpty { out += " (" + perState.joined(separator: ", ") + ")" }
        out += ", \(Units.bytes(done)) of \(Units.bytes(known))"
        if unknown > 0 { out += " known, \(unknown) \(unknown == 1 ? "task" : "tasks") of unknown size" }
        return out + ", \(Units.speed(speed))"
    }
}
