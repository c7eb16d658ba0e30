/// How tasks that went away from the mount had ended, as the lines of
/// `MOUNT/events` (R24) tell it: what `downloadfs wait` and `add --wait`
/// (R4) report for a task whose `wait` they reach only after it is gone.
///
/// `wait` reads the tasks' `wait` files one after another. A task that
/// completes while another is waited on, and is then forgotten (R34
/// `forget`, `forget-completed`, an aria2 client's purge), has no `wait`
/// left by its turn: the mount answers `failed: task removed`, or the
/// directory is gone. Forgetting is not cancelling — only a completed task
/// can be forgotten, and its file stays — so its `forgotten` line says it
/// completed, under the name the line gives. A `removed` line (R32) says
/// it was cancelled: `failed: task removed`, as its `wait` says.
///
/// Fed every line read from `events` since before the tasks were looked
/// at, in order. `lost N` lines and lines about other tasks are passed
/// over; only a task's leaving line is kept, so memory stays small however
/// long the wait.
public struct GoneTaskEndings: Sendable {
    /// What the lines said of one task.
    public enum Answer: Sendable, Equatable {
        /// It left the mount: how it had ended, and its name when that is known.
        case ended(TaskEnding, name: String?)
        /// No line has said it left (yet: its line may still be on the way).
        case untold
    }

    /// The ids whose lines are kept; nil: every id (until `watch(only:)`).
    private var watched: Set<Int64>?
    private var gone: [Int64: Answer] = [:]

    public init() {}

    /// From now on only the lines of `ids` count; what was kept of others is
    /// dropped. `add --wait` opens `events` before adding and learns its ids
    /// after, so lines about all tasks are kept until then.
    public mutating func watch(only ids: some Sequence<Int64>) {
        let kept = Set(ids)
        watched = kept
        gone = gone.filter { kept.contains($0.key) }
    }

    /// Takes one line of `events` (`TIME ID EVENT NAME`, its newline ignored).
    public mutating func take(_ line: Substring) {
        guard case .change(let id, let event, let name) = EventLine.read(line), watched?.contains(id) ?? true else { return }
        switch event {
        case "forgotten": gone[id] = .ended(.completed, name: name.isEmpty ? nil : String(name))
        case "removed": gone[id] = .ended(.failed(Self.removed), name: nil)
        default: break
        }
    }

    /// What the lines taken so far say of task `id`, gone from the mount.
    public func ending(ofGone id: Int64) -> Answer {
        gone[id] ?? .untold
    }

    /// The reason `wait` gives for a removed task (R22); also what a task
    /// gone without a line (lost, or `events` unreadable) is reported as.
    public static let removed = "task removed"
}
