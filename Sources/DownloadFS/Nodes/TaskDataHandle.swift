import DownloadFSCore
import Engine
import FuseKit
import Glibc
import Synchronization

/// An open data file of a task (R23).
///
/// - A completed task's file is served as in `files/` (`FinishedFileHandle.serve`).
/// - An unfinished one whose total is known is a whole file: bytes the
///   task holds are served at once; a read of others waits, its reply
///   parked in the task's `LiveProgress` (no thread held), while the loop
///   has the task fetch them first; it is answered when they are written,
///   EIO when they will not come, EINTR when the reader is interrupted.
/// - Without a total it grows: bytes from 0 without a hole, then end of file.
///
/// Unfinished bytes are copied (`pread`), and served only if the file's
/// generation is still the one they were read under: a start-over cuts or
/// replaces the file, and a reader must never get the old version's bytes
/// or the zeros of a cut file.
///
/// One handle reads one version of the file (R23): the generation of the
/// first bytes it serves is pinned, and once a start-over (the file changed
/// on the server) moved the generation on, every read of it is EIO — while
/// the new version downloads and after it completed. A reader that kept
/// reading used to put the old version's front and the new one's back
/// together; it opens the file again to read the new version. A handle
/// that has served nothing yet (its first read waited through the
/// start-over) has nothing to mix, and pins the new version.
///
/// A handle that holds the finished file (opened on the completed task, or
/// read since it completed) keeps reading it to its end once the task is
/// gone — forgotten (R34: the file stays) or removed (R32: its inode lives
/// while the descriptor holds it) — as an open file does on any
/// filesystem, and as an open `files/<name>` does. One that holds no
/// finished file answers EIO then: its bytes will not come.
final class TaskDataHandle: FileReader, FileReleaser {
    private let context: NodeContext
    private let id: Int64
    let caching: FileCaching

    private struct Descriptors {
        /// -1 until opened; valid for `generation` of the task's data file.
        var fd: Int32 = -1
        var generation: UInt64 = 0
        /// The finished file's size once `fd` is known to be the completed
        /// task's file: all a read needs once the task is gone.
        var finishedSize: Int64?
        /// Descriptors of older generations: another read may still use
        /// one, so they are closed at release, not when replaced.
        var retired: [Int32] = []
    }
    private let descriptors = Mutex(Descriptors())
    /// The generation of the bytes this handle served; `unpinned` before
    /// its first. An atomic: every read looks at it.
    private let pinned = Atomic<UInt64>(unpinned)
    private static let unpinned = UInt64.max

    init(context: NodeContext, id: Int64, caching: FileCaching) {
        self.context = context
        self.id = id
        self.caching = caching
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        guard let entry = context.table.entry(id) else { return readGone(size: size, offset: offset, reply: reply) }
        let record = entry.record
        if record.state == .completed {
            let generation = entry.generation
            let fd = descriptor(for: entry, generation: generation)
            guard fd >= 0, pin(generation) else { reply.error(.io); return }
            FinishedFileHandle.serve(fd, size: record.downloaded, wanted: size, offset: offset, caching: caching, reply: reply)
            return
        }
        let (generation, ranges) = entry.held
        // Another version than the one this handle served: EIO at once,
        // rather than after waiting for bytes it will refuse.
        guard [Self.unpinned, generation].contains(pinned.load(ordering: .relaxed)) else {
            reply.error(.io)
            return
        }
        guard let total = record.total else {
            // Unknown total: the bytes from 0 without a hole, then end of file.
            let end = min(offset + Int64(size), ranges.prefixEnd)
            guard offset < end else { reply.bytes([]); return }
            return serve(offset..<end, of: entry, generation: generation, size: size, reply: reply)
        }
        let wanted = offset..<max(offset, min(offset + Int64(size), total))
        guard !wanted.isEmpty else { reply.bytes([]); return }
        if ranges.covers(wanted) {
            return serve(wanted, of: entry, generation: generation, size: size, reply: reply)
        }
        guard record.state != .failed else { reply.error(.io); return }
        park(wanted, size: size, offset: offset, reply: reply)
    }

    /// A read once the task is gone (forgotten, removed): the finished file
    /// this handle holds, to its end; EIO without one (read(2) never
    /// answers ENOENT for an open file).
    private func readGone(size: Int, offset: Int64, reply: ReadReply) {
        let held = descriptors.withLock { d in d.finishedSize.map { (d.fd, $0, d.generation) } }
        guard let (fd, finishedSize, generation) = held, pin(generation) else { reply.error(.io); return }
        FinishedFileHandle.serve(fd, size: finishedSize, wanted: size, offset: offset, caching: caching, reply: reply)
    }

    /// Parks the read until `range` is written (nil: until the task tells
    /// its readers), then reads again; EIO if the bytes will not come,
    /// EINTR if the reader is interrupted first.
    private func park(_ range: Range<Int64>?, size: Int, offset: Int64, reply: ReadReply) {
        context.loop.client.awaitBytes(id, range, reader: { [self] outcome in
            switch outcome {
            case .ready: read(size: size, offset: offset, reply: reply)
            case .failed: reply.error(.io)
            }
        }, parked: { live, token in
            reply.onInterrupt { if live.cancel(token) { reply.error(.interrupted) } }
        })
    }

    /// Answers with `range` of the unfinished file, read under `generation`;
    /// reads again (`read`) when the file changed meanwhile.
    private func serve(_ range: Range<Int64>, of entry: TaskEntry, generation: UInt64, size: Int, reply: ReadReply) {
        let fd = descriptor(for: entry, generation: generation)
        guard fd >= 0 else {
            // Every byte is here and the file is being moved into files/
            // (published before the move starts): read it there once the
            // task shows completed.
            if let now = context.table.entry(id)?.record, now.isMovingIntoFiles || now.state == .completed {
                return park(nil, size: size, offset: range.lowerBound, reply: reply)
            }
            reply.error(.io)
            return
        }
        var got = 0
        let buffer = [UInt8](unsafeUninitializedCapacity: range.count) { bytes, count in
            got = pread(fd, bytes.baseAddress, bytes.count, off_t(range.lowerBound))
            count = max(0, got)
        }
        // A task with no live progress when the read began may have got one since.
        let live = entry.live ?? context.table.entry(id)?.live
        if live?.generation ?? generation != generation {
            return read(size: size, offset: range.lowerBound, reply: reply)
        }
        guard got == range.count, pin(generation) else { reply.error(.io); return }
        reply.bytes(buffer)
    }

    /// Whether bytes of `generation` may be served by this handle: it has
    /// served none yet (they pin it) or only bytes of that generation.
    private func pin(_ generation: UInt64) -> Bool {
        let (pinnedNow, was) = pinned.compareExchange(expected: Self.unpinned, desired: generation,
                                                      ordering: .relaxed)
        return pinnedNow || was == generation
    }

    /// The handle's descriptor of the task's data file as of `generation`,
    /// opening it when there is none or it is of an older generation; -1
    /// (errno set by `open`) if the file cannot be opened.
    /// A completed task's descriptor is remembered as its finished file (`readGone`).
    func descriptor(for entry: TaskEntry, generation: UInt64) -> Int32 {
        // Of a completed task, the file is the finished one: a descriptor
        // opened on its partial file under the same generation has the
        // inode that was moved into files/.
        let finishedSize = entry.record.state == .completed ? entry.record.downloaded : nil
        let current = descriptors.withLock { d -> Int32 in
            guard d.fd >= 0 && d.generation == generation else { return -1 }
            if let finishedSize { d.finishedSize = finishedSize }
            return d.fd
        }
        if current >= 0 { return current }
        let fd = Glibc.open(TaskDataFile.path(entry, in: context.state), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        // Reads racing here may each open one: the first stored wins, the
        // others close their own (issue 9, item 8: they used to leak).
        let (kept, spare) = descriptors.withLock { d -> (Int32, Int32) in
            if d.fd >= 0 && d.generation == generation {
                if let finishedSize { d.finishedSize = finishedSize }
                return (d.fd, fd)
            }
            if d.fd >= 0 { d.retired.append(d.fd) }
            d.fd = fd
            d.generation = generation
            d.finishedSize = finishedSize
            return (fd, -1)
        }
        if spare >= 0 { close(spare) }
        return kept
    }

    /// After the kernel's last read of this handle (it sends release once
    /// every request on the file has ended).
    func release() {
        let all = descriptors.withLock { d -> [Int32] in
            defer { d = Descriptors() }
            return d.retired + (d.fd >= 0 ? [d.fd] : [])
        }
        for fd in all { close(fd) }
    }
}
