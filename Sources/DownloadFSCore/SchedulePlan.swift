/// What the scheduler decided: tasks to start now and tasks to send back to `queued`.
///
/// The caller applies `demote` before `start` so the slot count never exceeds the limit.
public struct SchedulePlan: Sendable, Equatable {
    /// Tasks to move to `downloading`, in the order they should start.
    public var start: [Int64]
    /// Downloading tasks to move back to `queued` (their data is kept).
    public var demote: [Int64]

    public init(start: [Int64] = [], demote: [Int64] = []) {
        self.start = start
        self.demote = demote
    }

    public static let nothing = SchedulePlan()
}
