import CLinux
import Dispatch
import DownloadFSCore
import Glibc

/// Flushes data files to disk off the engine thread (R51).
///
/// The engine hands over a duplicate descriptor; a lane runs `fdatasync` and
/// only then reports, so a committed count never runs ahead of the disk. Each
/// transfer attempt has its own serial lane, which keeps its reports in order
/// (checkpoints before the finish) while different transfers sync in
/// parallel: with many small files, one file's `fdatasync` does not wait for
/// another's report to be committed. A slow disk delays checkpoints rather
/// than the network.
///
/// A finished file's last flush is paid in a group (`GroupFlusher`): its
/// lane (or, for a small file with nothing to report first, the engine
/// thread) starts the file's writeback and hands it over, and the task
/// leaves its download slot while it waits (R16, shown `verifying`).
final class Checkpointer: Sendable {
    private let pending = DispatchGroup()
    private let flusher: GroupFlusher
    /// Wakes the engine thread (a transfer held for the disk may go on).
    let wake: @Sendable () -> Void

    init(flushGroup: FlushGroupPolicy = .standard, wake: @escaping @Sendable () -> Void) {
        self.wake = wake
        flusher = GroupFlusher(policy: flushGroup)
    }

    /// A new serial lane for one transfer attempt. Lanes target the
    /// overcommitting global queue (no `target:`), which gives a blocked
    /// lane's successor a thread of its own: a custom concurrent pool runs
    /// only as many blocks as there are cores, and with 16 small files
    /// finishing at once their `fdatasync`s then waited in line, two at a
    /// time (1,000 × 64 KiB took twice as long).
    func lane() -> Lane { Lane(queue: DispatchQueue(label: "downloadfs.checkpoint"), pending: pending, flusher: flusher) }

    /// No task is left to download (`GroupFlusher.noneDownloading`).
    func noneDownloading() { flusher.noneDownloading() }

    /// Waits until every queued sync has run and reported (used at shutdown);
    /// files waiting for their group are flushed at once.
    func drain() {
        flusher.drain()
        pending.wait()
    }

    struct Lane: Sendable {
        fileprivate let queue: DispatchQueue
        fileprivate let pending: DispatchGroup
        fileprivate let flusher: GroupFlusher

        /// A finished file: starts its writeback, then has it flushed with
        /// its group (`GroupFlusher`, which closes `fd`) and runs `then`
        /// with the flush's errno (0: durable). After the lane's earlier
        /// checkpoints, like `sync`; `direct` (no checkpoint under way, so
        /// none to come first and little left to write back) does it on the
        /// caller's thread instead, which saves a hand-off per small file.
        func syncInGroup(_ fd: Int32, direct: Bool, then: @escaping @Sendable (Int32) -> Void) {
            pending.enter()
            let join: @Sendable () -> Void = { [pending, flusher] in
                // An error here shows again at the group's flush.
                _ = clinux_start_writeback(fd)
                flusher.join(fd) { err in
                    then(err)
                    pending.leave()
                }
            }
            if direct { join() } else { queue.async(execute: join) }
        }

        /// Syncs `fd`, runs `then` with it, still open (it may cut the file),
        /// and the sync's errno (0: ok), then closes it.
        func sync(_ fd: Int32, then: @escaping @Sendable (_ fd: Int32, _ err: Int32) -> Void) {
            pending.enter()
            queue.async { [pending] in
                let rc = fdatasync(fd)
                let err = rc == 0 ? 0 : errno
                then(fd, err)
                close(fd)
                pending.leave()
            }
        }

        /// A checkpoint: takes `snapshot` (what has been written so far) just
        /// before the sync, which makes every byte written before it durable,
        /// and reports it once synced. Taken at the start of the sync rather
        /// than when it was asked for, it stays close behind the written
        /// bytes when the disk is busy.
        /// `synced` runs once the sync succeeded, with `fd` still open;
        /// `then` gets the snapshot, or the sync's errno when it failed.
        func checkpoint<Snapshot: Sendable>(_ fd: Int32, snapshot: @escaping @Sendable () -> Snapshot,
                                            synced: @escaping @Sendable (Int32, Snapshot) -> Void,
                                            then: @escaping @Sendable (Result<Snapshot, SyncError>) -> Void) {
            pending.enter()
            queue.async { [pending] in
                let taken = snapshot()
                let rc = fdatasync(fd)
                let err = rc == 0 ? 0 : errno
                if rc == 0 { synced(fd, taken) }
                close(fd)
                then(rc == 0 ? .success(taken) : .failure(SyncError(errno: err)))
                pending.leave()
            }
        }
    }
}
