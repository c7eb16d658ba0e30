/// What a task's current attempt is doing, beside its R15 state (which
/// stays `downloading` or `verifying` through all of it). Named here so no
/// one infers it from other fields or from an errno: the scheduler, the
/// readers of a data file and `pause-all` ask this.
public enum AttemptPhase: Sendable, Equatable {
    /// No transfer of the attempt runs: a waiting, paused or finished task,
    /// or one being verified (R56).
    case idle
    /// The engine fetches.
    case transferring
    /// A stop was asked (pause, requeue); the engine has not reported it yet.
    case stopping(StopReason)
    /// Every byte is in and the task is `verifying`, out of its slot; the
    /// engine makes the file durable (R51, with a group of others) before
    /// it reports the attempt finished.
    case syncing
    /// The whole file, durable and verified, is being moved into
    /// STATE/files (R42, R43); it shows in files/ once that is committed.
    case movingIn

    /// The engine has not reported the attempt finished.
    public var hasTransfer: Bool {
        switch self {
        case .transferring, .stopping, .syncing: return true
        case .idle, .movingIn: return false
        }
    }

    public var stop: StopReason? {
        if case .stopping(let reason) = self { return reason }
        return nil
    }

    /// On its way out of its download slot: it keeps the slot until it is
    /// out, and is never sent back to the waiting line.
    public var isLeaving: Bool {
        switch self {
        case .stopping, .syncing, .movingIn: return true
        case .idle, .transferring: return false
        }
    }
}
