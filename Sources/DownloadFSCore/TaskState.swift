/// The lifecycle state of one download task (R15).
///
/// The legal transitions are a closed table, so the catalog, the engine and
/// the FUSE `ctl` files all agree on what may happen next:
///
/// | from          | to                                                          |
/// |---------------|-------------------------------------------------------------|
/// | `queued`      | `downloading`, `paused`, `failed`                           |
/// | `downloading` | `queued` (preempted, demoted, unmount), `paused`, `retrying`, `verifying`, `completed`, `failed` |
/// | `retrying`    | `queued`, `downloading`, `paused`, `failed`                 |
/// | `paused`      | `queued`, `downloading`                                     |
/// | `verifying`   | `completed`, `failed`, `queued` (restart after an unmount)  |
/// | `failed`      | `queued`, `downloading` (resume, R30, R54)                  |
/// | `completed`   | `failed` (only when a mount finds its file gone)            |
///
/// Staying in the same state is not a transition.
public enum TaskState: String, Sendable, CaseIterable, Codable {
    case queued, downloading, paused, retrying, verifying, completed, failed

    /// True when the task will not move by itself any more (`completed` or `failed`).
    public var isFinished: Bool {
        self == .completed || self == .failed
    }

    /// True when the task has started and not yet ended (`downloading` or
    /// `verifying`): a mount puts it back in line (R50).
    public var isRunning: Bool {
        self == .downloading || self == .verifying
    }

    /// True when the task occupies one of the `max-active` slots (R16): only
    /// while it downloads. A task whose bytes are all in is `verifying` —
    /// waiting for its group's flush (R51), its checksum (R56) or its move
    /// into files/ — and lets the next one download meanwhile.
    public var holdsSlot: Bool { self == .downloading }

    /// Queued or paused: a task with a place in the waiting line, which
    /// `move N` counts in and `user.downloadfs.line` lists (R30).
    public var standsInLine: Bool { self == .queued || self == .paused }

    /// Waiting for a slot, holding one, or waiting out a back-off: what
    /// scheduling and speed limits are about (not paused, completed or failed).
    public var isInFlight: Bool {
        isRunning || self == .queued || self == .retrying
    }

    /// Whether moving from this state to `next` is allowed by the table above.
    public func canTransition(to next: TaskState) -> Bool {
        TaskState.legalTargets[self]?.contains(next) ?? false
    }

    /// Checks the transition and returns `next`, or throws the sentence to show the user.
    public func transition(to next: TaskState) throws(TransitionError) -> TaskState {
        guard canTransition(to: next) else {
            throw TransitionError(from: self, to: next)
        }
        return next
    }

    private static let legalTargets: [TaskState: Set<TaskState>] = [
        .queued: [.downloading, .paused, .failed],
        .downloading: [.queued, .paused, .retrying, .verifying, .completed, .failed],
        .retrying: [.queued, .downloading, .paused, .failed],
        .paused: [.queued, .downloading],
        .verifying: [.completed, .failed, .queued],
        .failed: [.queued, .downloading],
        .completed: [.failed],
    ]
}
