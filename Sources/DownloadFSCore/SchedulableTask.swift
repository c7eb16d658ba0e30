/// What the scheduler needs to know about one task: its state, place in line and last start.
public struct SchedulableTask: Sendable, Equatable {
    public var id: Int64
    public var state: TaskState
    /// Place in the waiting line; lower starts first (R16, `top` in R30).
    public var position: Int64
    /// When it last started downloading (monotonic or epoch seconds); nil if never.
    public var startedAt: Double?
    /// Holding a slot on its way out — a stop the engine has not settled,
    /// or a whole file being moved into files/: it keeps its slot until it
    /// is out, and is never sent back to the line.
    public var leaving: Bool

    public init(id: Int64, state: TaskState, position: Int64, startedAt: Double? = nil, leaving: Bool = false) {
        self.id = id
        self.state = state
        self.position = position
        self.startedAt = startedAt
        self.leaving = leaving
    }

    public init(_ task: DownloadTask) {
        self.init(id: task.taskID, state: task.state, position: task.position, startedAt: task.startedAt,
                  leaving: task.state.isRunning && task.phase.isLeaving)
    }
}
