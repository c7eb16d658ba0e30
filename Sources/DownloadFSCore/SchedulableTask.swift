/// What the scheduler needs to know about one task: its state, place in line and last start.
public struct SchedulableTask: Sendable, Equatable {
    public var id: Int64
    public var state: TaskState
    /// Place in the waiting line; lower starts first (R16, `top` in R30).
    public var position: Int64
    /// When it last started downloading (monotonic or epoch seconds); nil if never.
    public var startedAt: Double?

    public init(id: Int64, state: TaskState, position: Int64, startedAt: Double? = nil) {
        self.id = id
        self.state = state
        self.position = position
        self.startedAt = startedAt
    }
}
