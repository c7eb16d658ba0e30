import Foundation
import Glibc
import Synchronization

/// STATE/daemon.log: a daemon in the background writes its own lines (and
/// its on-complete hooks their output) there, on descriptors 1 and 2. Kept
/// to a bounded size: past `limit` bytes of the daemon's lines it becomes
/// daemon.log.1, replacing the one before, and a new daemon.log starts —
/// about 220 bytes per download would otherwise grow it for ever. The
/// history a user reads is `MOUNT/log` (the catalog's newest lines); this
/// file holds what the catalog cannot: a mount that failed, a crash's last
/// words.
final class DaemonLogFile: Sendable {
    /// 4 MiB, some 20,000 lines, in each of the two files. The environment's
    /// `DOWNLOADFS_DAEMON_LOG_BYTES` sets another (a test's small one).
    static var limit: Int {
        ProcessInfo.processInfo.environment["DOWNLOADFS_DAEMON_LOG_BYTES"].flatMap(Int.init).map { max($0, 1024) }
            ?? 4 << 20
    }

    let path: String
    private let limit: Int
    /// Bytes written to the current file, as far as this process knows.
    private let written: Atomic<Int>

    /// Opens (appends to) `path` on descriptors 1 and 2; nil when it cannot
    /// be opened (the daemon's lines then go where they went).
    init?(path: String) {
        self.path = path
        limit = Self.limit
        var info = stat()
        written = Atomic(stat(path, &info) == 0 ? Int(info.st_size) : 0)
        guard Self.open(path) else { return nil }
    }

    /// Counts a line of `bytes` written; the line that takes the file past
    /// the limit moves it aside and starts a new one (one thread does).
    func wrote(_ bytes: Int) {
        let after = written.add(bytes, ordering: .relaxed).newValue
        guard after > limit, after - bytes <= limit else { return }
        rename(path, path + ".1")
        _ = Self.open(path)
        written.store(0, ordering: .relaxed)
    }

    private static func open(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        dup2(fd, 1)
        dup2(fd, 2)
        close(fd)
        return true
    }
}
