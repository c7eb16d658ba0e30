import DownloadFSCore
import Foundation

/// Follows `MOUNT/events` (R24) for `wait` and `add --wait` from before
/// they look at any task, so that a task gone by its turn — completed and
/// forgotten while another was waited on — is reported by how it went
/// (`GoneTaskEndings`), not as removed.
///
/// The lines are read on the follower's thread as they come (a reader more
/// than 10,000 lines behind loses lines, and a wait may last hours); the
/// waiting thread only asks. A mount whose `events` cannot be opened is
/// waited on as before: every gone task is `failed: task removed`.
final class GoneTaskWatch: @unchecked Sendable {
    /// How long `ending(ofGone:)` waits for a task's leaving line that has
    /// not been read yet: it is published with the change that took the
    /// directory away, so it is at most a moment behind.
    static let lineDeadline: TimeInterval = 2

    /// Guards `endings` and `streamEnded`; signalled at each line and at the end.
    private let condition = NSCondition()
    private var endings = GoneTaskEndings()
    /// No line will come any more: the mount went away, a read failed, or
    /// `events` could not be opened.
    private var streamEnded = false

    /// Starts following the mount's `events` now.
    init(mount: String, command: String) {
        let follower = EventFollower(mount: mount, command: command, onLine: { [self] line in
            condition.lock()
            endings.take(Substring(line))
            condition.broadcast()
            condition.unlock()
        }, onEnd: { [self] _ in endStream() })
        do { try follower.start() } catch { endStream() }
    }

    /// Only the lines of `ids` are kept from now on.
    func watch(only ids: [Int64]) {
        condition.lock()
        endings.watch(only: ids)
        condition.unlock()
    }

    /// How task `id`, found gone, had ended: what its `forgotten` or
    /// `removed` line says, waiting up to `lineDeadline` for it; without
    /// one, removed (`failed: task removed`, as its `wait` said).
    func ending(ofGone id: Int64) -> (ending: TaskEnding, name: String?) {
        let deadline = Date(timeIntervalSinceNow: Self.lineDeadline)
        condition.lock()
        defer { condition.unlock() }
        while endings.ending(ofGone: id) == .untold, !streamEnded, condition.wait(until: deadline) {}
        guard case .ended(let ending, let name) = endings.ending(ofGone: id) else {
            return (.failed(GoneTaskEndings.removed), nil)
        }
        return (ending, name)
    }

    private func endStream() {
        condition.lock()
        streamEnded = true
        condition.broadcast()
        condition.unlock()
    }
}
