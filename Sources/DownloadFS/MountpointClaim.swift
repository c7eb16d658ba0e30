import Foundation
import Glibc
import Synchronization

/// Makes "is it already a mount?" (R2) hold when two `mount`s of one
/// directory run at once: each takes an `flock` on the directory it is
/// about to mount over before asking, and keeps it until its mount is
/// ready or has failed. The one that waited asks again once it has the
/// lock (`MountPreflight.checkNotMounted`), finds the other's mount and
/// fails as over any mount, leaving nothing behind; had the other failed,
/// it goes on. Without this both saw an unmounted directory and two mounts
/// were stacked there, the lower one's daemon unreachable.
///
/// The lock is on the covered directory's inode (the descriptor was opened
/// before the mount), so it never touches the mount itself. A directory
/// that cannot be opened for reading cannot be locked; the claim is then
/// empty, and the check is as before.
public final class MountpointClaim: Sendable {
    /// How long to wait for another mount of the directory to be ready or
    /// fail: its readiness deadline, and a little.
    static let waitSeconds = Double(Daemon.readyDeadline) + 5

    private let fd: Mutex<Int32>

    /// Waits until this process holds the claim on `path`; throws when
    /// another mount keeps it past `waitSeconds`.
    public init(_ path: String) throws(DaemonError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        self.fd = Mutex(fd)
        guard fd >= 0 else { return }
        let deadline = Date().addingTimeInterval(Self.waitSeconds)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                release()  // a file system without locks: the check as before
                return
            }
            guard Date() < deadline else {
                release()
                try MountPreflight.checkNotMounted(path)
                throw DaemonError("another mount at \(path) is under way and not ready after \(Int(Self.waitSeconds)) s; "
                    + "wait for it, or unmount it (downloadfs unmount \(path))")
            }
            usleep(20_000)
        }
    }

    /// Lets the next `mount` of the directory ask (the mount is ready, or
    /// has failed). Idempotent.
    public func release() {
        fd.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    deinit { release() }
}
