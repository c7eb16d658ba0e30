import Glibc
import Synchronization

/// The mtimes of `queue/` and `files/`: when their listings last changed.
///
/// The kernel has no way to announce a new entry to inotify watchers (R7),
/// but a file manager that polls a directory's mtime (as KDE's does on FUSE
/// mounts) sees it move and reads the listing again. Kept in memory: after
/// a mount both start at the mount time.
final class ListingTimes: Sendable {
    private struct Times { var queue: timespec; var files: timespec }
    private let times: Mutex<Times>

    init(_ mountedAt: timespec) { times = Mutex(Times(queue: mountedAt, files: mountedAt)) }

    var queue: timespec { times.withLock { $0.queue } }
    var files: timespec { times.withLock { $0.files } }

    /// Records that the listings changed now.
    func touch(queue: Bool, files: Bool) {
        guard queue || files else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        times.withLock { t in
            if queue { t.queue = now }
            if files { t.files = now }
        }
    }
}
