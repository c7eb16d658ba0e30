/// What one event made of a task: the task after it, the log lines that say
/// so (committed in the same transaction as the task), and the effects to
/// carry out once committed.
public struct TaskTransition: Sendable, Equatable {
    public var task: DownloadTask
    /// Lines for the task's log.
    public var log: [String] = []
    /// Lines for the daemon log (`MOUNT/log`).
    public var daemonLog: [String] = []
    public var effects: [TaskEffect] = []
    /// The task is gone: its row is deleted (R32).
    public var removed = false

    public init(task: DownloadTask) { self.task = task }
}
