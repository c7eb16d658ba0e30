import FuseKit
import Glibc
import Synchronization

/// An open data file of a task (R23). Reads are served from the partial or
/// finished file's descriptor, never past what has arrived.
///
/// The descriptor is opened at `open` when the file exists, else by the
/// first read that finds it. Concurrent reads of one handle may both find
/// none and both open one: the first to store its descriptor wins, the
/// other closes its own (issue 9, item 8: the loser used to leak).
final class TaskDataHandle: FileReader, FileReleaser {
    private let context: NodeContext
    private let id: Int64
    /// -1 until a descriptor is stored; set at most once, closed at release.
    private let descriptor: Atomic<Int32>
    let caching: FileCaching

    init(context: NodeContext, id: Int64, descriptor: Int32, caching: FileCaching) {
        self.context = context
        self.id = id
        self.descriptor = Atomic(descriptor)
        self.caching = caching
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        guard let entry = context.table.entry(id) else { reply.error(.noEntry); return }
        let fd = opened(entry)
        let visible = TaskDataFile.visibleSize(entry)
        guard fd >= 0, offset < visible else { reply.bytes([]); return }
        reply.file(fd, offset: offset, size: min(size, Int(visible - offset)))
    }

    /// The handle's descriptor, opening the file if it now exists.
    private func opened(_ entry: TaskEntry) -> Int32 {
        let stored = descriptor.load(ordering: .acquiring)
        if stored >= 0 { return stored }
        let fd = Glibc.open(TaskDataFile.path(entry, in: context.state), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        let (won, winner) = descriptor.compareExchange(expected: -1, desired: fd, ordering: .acquiringAndReleasing)
        if won { return fd }
        close(fd)
        return winner
    }

    /// After the kernel's last read of this handle (it sends release once
    /// every request on the file has ended).
    func release() {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { close(fd) }
    }
}
