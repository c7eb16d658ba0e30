import CFuse
import Foundation
import Glibc
import Synchronization
import Threads

/// Sends `KernelNotice`s to the kernel from one dedicated serial thread.
///
/// Why a thread of its own: an invalidation takes the kernel's lock on the
/// parent directory, and the kernel holds that lock while it waits for our
/// answer to a related request (`rmdir queue/5` holds `queue/`'s lock until
/// we answer). A notice sent from the path that answers such a request —
/// a FUSE handler, or the task loop a handler waits on — would wait for
/// itself (libfuse: "must not be called in the execution path of a related
/// filesystem operation"). Here it only waits for that answer. `post`
/// never blocks: notices queue up, in order, and an inode's `attributes` or
/// `contents` notice already waiting is not queued again (100,000 tasks
/// added in one write need `queue/`'s attributes dropped once, not 100,000
/// times: the one waiting is sent after every change before it was taken).
///
/// Started by `FuseSession` once the session exists; stopped when the
/// session loop has ended, before the session is destroyed. Errors are
/// expected and ignored: ENOENT (the kernel does not hold that name or
/// inode, the usual case), ENOSYS (before the handshake), ENOTCONN/ENODEV
/// (unmounted), ENOTEMPTY (a removed directory still in use: the kernel has
/// still forgotten it). Anything else is logged once.
public final class KernelNotifier: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var pending: [KernelNotice] = []
    /// The `attributes` and `contents` notices in `pending`: one of each per
    /// inode is enough until the thread takes them.
    private var pendingInodes: Set<KernelNotice> = []
    private var session: OpaquePointer?
    private var stopping = false
    /// True from `start` until the thread has ended.
    private var running = false
    private static let failureLogged = Atomic<Bool>(false)
    /// Notices queued and notices sent (or dropped by `stop`) so far: a
    /// `flush` waits for the second to reach what the first was.
    private var queued = 0
    private var sent = 0

    init() {}

    /// Queues notices for the notifier thread; never blocks, never sends.
    /// Dropped before `start` and after `stop` (nothing is mounted then).
    public func post(_ notices: some Sequence<KernelNotice>) {
        condition.lock()
        defer { condition.unlock() }
        guard running, !stopping else { return }
        var added = false
        for notice in notices {
            switch notice {
            case .attributes, .contents:
                if !pendingInodes.insert(notice).inserted { continue }
            case .entry, .deleted:
                break
            }
            pending.append(notice)
            queued += 1
            added = true
        }
        if added { condition.broadcast() }
    }

    public func post(_ notice: KernelNotice) { post(CollectionOfOne(notice)) }

    /// Waits, at most `seconds`, until every notice posted before the call
    /// has been sent: a writer whose command made an entry go (`forget`)
    /// is answered once the kernel no longer shows it. Only for a path the
    /// kernel holds no directory lock on (a write to an open `ctl`), for
    /// the reason the thread exists; the deadline bounds the rest.
    public func flush(waitingUpTo seconds: Double) {
        condition.lock()
        defer { condition.unlock() }
        let target = queued
        let deadline = Date(timeIntervalSinceNow: seconds)
        while running, !stopping, sent < target, condition.wait(until: deadline) {}
    }

    /// Starts the thread; `session` must outlive `stop`.
    func start(_ session: OpaquePointer) throws(ThreadStartError) {
        condition.lock()
        self.session = session
        running = true
        condition.unlock()
        do {
            try OSThread.start("downloadfs-notify") { [self] in
                run()
                ended()
            }
        } catch {
            ended()
            throw error
        }
    }

    /// The thread has ended, or was never made: `stop` stops waiting.
    private func ended() {
        condition.lock()
        running = false
        condition.broadcast()
        condition.unlock()
    }

    /// Drops what is still queued and ends the thread. Returns false when
    /// the thread has not ended within `seconds` (a notice stuck in the
    /// kernel, waiting for a lock that a request nobody answers any more
    /// holds): the caller must then not destroy the session under it.
    @discardableResult
    func stop(waitingUpTo seconds: Double) -> Bool {
        condition.lock()
        stopping = true
        pending.removeAll()
        pendingInodes.removeAll()
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while running && condition.wait(until: deadline) {}
        let ended = !running
        condition.unlock()
        return ended
    }

    private func run() {
        while true {
            condition.lock()
            while pending.isEmpty && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            pendingInodes.removeAll(keepingCapacity: true)
            let session = self.session
            condition.unlock()
            for notice in batch {
                if isStopping() { return }
                KernelNotifier.note(send(notice, through: session))
            }
            condition.lock()
            sent += batch.count
            condition.broadcast()
            condition.unlock()
        }
    }

    private func isStopping() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    private func send(_ notice: KernelNotice, through session: OpaquePointer?) -> Int32 {
        switch notice {
        case .entry(let parent, let name):
            return name.withCString { fuse_lowlevel_notify_inval_entry(session, fuse_ino_t(parent), $0, strlen($0)) }
        case .deleted(let parent, let child, let name):
            return name.withCString {
                fuse_lowlevel_notify_delete(session, fuse_ino_t(parent), fuse_ino_t(child), $0, strlen($0))
            }
        case .attributes(let inode):
            return fuse_lowlevel_notify_inval_inode(session, fuse_ino_t(inode), -1, 0)
        case .contents(let inode):
            return fuse_lowlevel_notify_inval_inode(session, fuse_ino_t(inode), 0, 0)
        }
    }

    /// Logs the first unexpected failure; the usual ones are not failures.
    private static func note(_ rc: Int32) {
        switch -rc {
        case 0, ENOENT, ENOSYS, ENOTCONN, ENODEV, EBADF, ENOTEMPTY, EBUSY, ENOTDIR: return
        default: break
        }
        guard !failureLogged.exchange(true, ordering: .relaxed) else { return }
        FileHandle.standardError.write(Data(
            "downloadfs: the kernel refused a cache notification: \(String(cString: strerror(-rc))) (later failures are not logged)\n".utf8))
    }
}
