import Glibc

/// The lock file that keeps a second daemon off a state dir (R2). flock is
/// released by the kernel when the process dies, so `kill -9` leaves no
/// stale lock behind.
public final class StateLock {
    private let fd: Int32

    public init(path: String, stateDir: String) throws(DaemonError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw DaemonError("cannot write to the state dir \(stateDir): \(String(cString: strerror(errno)))")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let err = errno
            close(fd)
            if err == EWOULDBLOCK {
                throw DaemonError("another downloadfs already uses the state dir \(stateDir); unmount it first or pick another --state-dir")
            }
            throw DaemonError("cannot lock the state dir \(stateDir): \(String(cString: strerror(err)))")
        }
    }

    deinit { close(fd) }
}
