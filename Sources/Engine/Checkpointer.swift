import Dispatch
import Glibc

/// Flushes data files to disk off the engine thread (R51).
///
/// The engine hands over a duplicate descriptor and the byte count written
/// so far; this queue runs `fdatasync` and only then reports the count, so a
/// committed count never runs ahead of the disk. One serial queue keeps the
/// reports of each transfer in order (checkpoints before the finish), and a
/// slow disk delays checkpoints rather than the network.
final class Checkpointer: Sendable {
    private let queue = DispatchQueue(label: "downloadfs.checkpointer")

    /// Syncs `fd` (then closes it) and runs `then` with the sync's errno (0: ok).
    func sync(_ fd: Int32, then: @escaping @Sendable (Int32) -> Void) {
        queue.async {
            let rc = fdatasync(fd)
            let err = rc == 0 ? 0 : errno
            close(fd)
            then(err)
        }
    }

    /// Waits until every queued sync has run (used at shutdown).
    func drain() {
        queue.sync {}
    }
}
