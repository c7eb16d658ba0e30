/// A state change the task lifecycle does not allow, e.g. resuming a completed task.
///
/// Carries both states so callers can log them, and a sentence a user can read
/// when a `ctl` command is refused.
public struct TransitionError: Error, Equatable, Sendable {
    public let from: TaskState
    public let to: TaskState

    public init(from: TaskState, to: TaskState) {
        self.from = from
        self.to = to
    }

    /// "cannot pause a completed task", "task is already paused".
    public var message: String {
        if from == to {
            return "task is already \(from.rawValue)"
        }
        return "cannot \(TransitionError.verb(for: to, from: from)) a \(from.rawValue) task"
    }

    private static func verb(for target: TaskState, from: TaskState) -> String {
        switch target {
        case .queued: return from == .paused || from == .failed ? "resume" : "queue"
        case .downloading: return from == .paused || from == .failed ? "resume" : "start"
        case .paused: return "pause"
        case .retrying: return "retry"
        case .verifying: return "verify"
        case .completed: return "complete"
        case .failed: return "fail"
        }
    }
}
