import Catalog
import Engine

/// One task in memory: its catalog record plus what moves between commits.
struct TaskEntry: Sendable {
    var record: TaskRecord
    /// Bytes written and speed, updated by the engine without locks.
    let live: LiveProgress
    /// The current transfer attempt; reports from older ones are ignored.
    var serial: UInt64 = 0
    /// Monotonic time the task last started downloading (preemption order, R30/R31).
    var startedAt: Double?

    var id: Int64 { record.taskID }
}
