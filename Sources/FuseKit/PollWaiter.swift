import CFuse
import Foundation
import Glibc
import Synchronization

/// Someone waiting in poll(2), select(2) or epoll for an open file to
/// become ready (libfuse's `fuse_pollhandle`): `notify` makes the kernel
/// ask the file's readiness again.
///
/// The kernel hands one with a FUSE_POLL when a poller will sleep on the
/// answer. One notification wakes every poller of that open file, however
/// many handles it sent (they all name the same file), so a filesystem
/// keeps the newest one per open file and lets the older go. The handle
/// is freed when the waiter goes (`fuse_pollhandle_destroy`), notified or
/// not.
///
/// `notify` writes to /dev/fuse through the session: it must not be called
/// once the session is destroyed (`FuseSession.teardown`). It never blocks:
/// the kernel only looks the file up and wakes its wait queue under a
/// spinlock (`fuse_notify_poll_wakeup`), taking no inode or directory lock,
/// so unlike cache notices (`KernelNotifier`) it may be sent from any
/// thread, even one a request waits on.
public final class PollWaiter: @unchecked Sendable {
    private let handle: OpaquePointer
    private static let failureLogged = Atomic<Bool>(false)

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { fuse_pollhandle_destroy(handle) }

    /// Wakes the pollers. Errors are expected and ignored: ENOENT or
    /// nothing when the file was closed meanwhile, ENOTCONN/ENODEV/EBADF
    /// once unmounted. Anything else is logged once.
    public func notify() {
        let rc = fuse_lowlevel_notify_poll(handle)
        switch -rc {
        case 0, ENOENT, ENOSYS, ENOTCONN, ENODEV, EBADF: return
        default: break
        }
        guard !PollWaiter.failureLogged.exchange(true, ordering: .relaxed) else { return }
        FileHandle.standardError.write(Data(
            "downloadfs: the kernel refused a poll notification: \(String(cString: strerror(-rc))) (later failures are not logged)\n".utf8))
    }
}
