import CLinux
import DownloadFSCore
import Foundation
import Glibc
import Threads

/// Makes finished data files durable in groups (R51; SPEC §9's many small
/// files), on a thread of its own (`downloadfs-flush`).
///
/// A file joins once its writeback was started (`clinux_start_writeback`,
/// by its checkpointer lane); `FlushGroupPolicy` says when the files
/// waiting are flushed, and how. While the system holds little dirty data
/// (`FlushGroupPolicy.method`), a flush is one `syncfs` — every dirty page
/// of the filesystem written and the device's cache flushed once, where an
/// `fdatasync` per file flushes it once per file; with much dirty data (a
/// big writer beside) it is an `fdatasync` per file, in parallel, so the
/// group does not wait for another program's data. After a `syncfs`, each
/// file gets a wait on its own writeback (`clinux_wait_writeback`), which returns the
/// writeback error that file's descriptor has not seen (its own errseq, as
/// `fdatasync` reports it). `syncfs` itself cannot say which file failed:
/// it reports any error on the filesystem since the descriptor it was called
/// on was opened, other programs' included. So:
/// - `syncfs` succeeded: the device was flushed after every member's pages
///   were written; a member whose own wait reports an error failed (its
///   pages may have been dropped, R51), the others are durable;
/// - `syncfs` failed (a writeback error somewhere, or the cache flush
///   itself): each member is `fdatasync`ed, which writes what is left,
///   flushes the device again and reports that file's own error.
///   Only the file that failed fails (R54: no other task is touched).
/// Each member's descriptor was opened before its data was written, so
/// its errseq has seen every error of its pages.
final class GroupFlusher: @unchecked Sendable {
    private struct Member {
        let fd: Int32
        let then: @Sendable (Int32) -> Void
    }

    private let policy: FlushGroupPolicy
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var waiting: [Member] = []
    private var firstJoined = 0.0
    private var draining = false
    private var running = false
    /// No task is left to download: the files waiting, or the next to
    /// come, go at once (`FlushGroupPolicy.decide`). Cleared by the flush
    /// that takes them. Set when none waits too: the loop learns that its
    /// last download ended from the report the engine sends just before it
    /// hands the file over.
    private var toldNoneDownloading = false

    init(policy: FlushGroupPolicy) { self.policy = policy }

    /// Adds `fd` (its writeback started) to the next group; the flusher
    /// closes it and runs `then` with the errno of its flush (0: durable).
    func join(_ fd: Int32, then: @escaping @Sendable (Int32) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        if waiting.isEmpty { firstJoined = MonotonicClock.now() }
        waiting.append(Member(fd: fd, then: then))
        if !running {
            running = (try? OSThread.start("downloadfs-flush", stackSize: 256 << 10) { [self] in run() }) != nil
            if !running {
                // No thread could be made: this caller flushes what waits
                // (slower, but no file waits for a thread that never runs).
                let group = waiting
                waiting = []
                condition.unlock()
                flush(group)
                condition.lock()
            }
        } else if waiting.count == 1 || waiting.count >= policy.size {
            // The thread sleeps with no file (start the deadline) or
            // until the deadline (the group is full now).
            condition.signal()
        }
    }

    /// No task is left to download: files waiting for company are
    /// flushed now, since none can come, and so is the next to join.
    func noneDownloading() {
        condition.lock()
        defer { condition.unlock() }
        toldNoneDownloading = true
        if !waiting.isEmpty { condition.signal() }
    }

    /// From now on every file is flushed as soon as it comes (shutdown).
    func drain() {
        condition.lock()
        draining = true
        condition.signal()
        condition.unlock()
    }

    /// The flusher's thread: sleeps until the policy says flush, flushes,
    /// and ends once draining leaves nothing to wait for (a join after that
    /// starts another).
    private func run() {
        condition.lock()
        while true {
            switch policy.decide(waiting: waiting.count, waited: MonotonicClock.now() - firstJoined,
                                 draining: draining, noneDownloading: toldNoneDownloading) {
            case .idle:
                if draining {
                    running = false
                    condition.unlock()
                    return
                }
                condition.wait()
            case .flushIn(let seconds):
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            case .flushNow:
                let group = waiting
                waiting = []
                toldNoneDownloading = false
                condition.unlock()
                flush(group)
                condition.lock()
            }
        }
    }

    private func flush(_ group: [Member]) {
        guard let first = group.first else { return }
        if policy.method(dirtyBytes: Self.dirtyBytes()) == .wholeFilesystem, clinux_syncfs(first.fd) == 0 {
            for member in group {
                finish(member, clinux_wait_writeback(member.fd) == 0 ? 0 : errno)
            }
        } else {
            let results = Self.fdatasyncEach(group.map(\.fd))
            for (member, err) in zip(group, results) { finish(member, err) }
        }
    }

    /// Threads that `fdatasync` a group's files at once: the filesystem
    /// joins flushes that arrive together into one journal commit.
    static let eachFileThreads = 16

    /// Each file's `fdatasync` errno (0: durable), on up to
    /// `eachFileThreads` threads at once.
    private static func fdatasyncEach(_ fds: [Int32]) -> [Int32] {
        let results = UnsafeMutableBufferPointer<Int32>.allocate(capacity: fds.count)
        defer { results.deallocate() }
        nonisolated(unsafe) let out = results
        OSThread.lanes(fds.count, width: eachFileThreads, name: "downloadfs-sync") { i in
            out[i] = fdatasync(fds[i]) == 0 ? 0 : errno
        }
        return Array(results)
    }

    /// The system's dirty bytes not yet under writeback; nil when
    /// /proc/meminfo cannot be read.
    private static func dirtyBytes() -> Int64? {
        (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)).flatMap(MemoryInfo.dirtyBytes(inMeminfo:))
    }

    private func finish(_ member: Member, _ err: Int32) {
        close(member.fd)
        member.then(err)
    }
}
