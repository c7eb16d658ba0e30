import DownloadFSCore
import Foundation
import FuseKit
import Glibc
import Synchronization

/// What the nodes of one mount share: the tasks as FUSE threads see them,
/// the loop that changes them, the state dir, the mount's owner and times,
/// the open drop-in files, the names of the plain files the kernel holds,
/// the events feed, and the notifier that tells the kernel about changes
/// (nil until the session exists, and in a mount without one).
final class NodeContext: Sendable {
    let loop: TaskLoop
    /// What `MOUNT/events` streams (R24); the loop publishes to the same one.
    let events: EventFeed
    let state: StateDirectory
    let uid = getuid()
    let gid = getgid()
    let mountedAt: timespec
    let dropIns = DropInRegistry()
    let storedNames = StoredEntryNames()
    let listings: ListingTimes
    private let announcer = Mutex<KernelNotifier?>(nil)

    var table: TaskTable { loop.table }
    var log: EventLog { loop.log }

    init(loop: TaskLoop, events: EventFeed) {
        self.loop = loop
        self.events = events
        self.state = loop.state
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        mountedAt = now
        listings = ListingTimes(now)
    }

    /// Set once, before the loop starts and the kernel sends anything.
    func attach(_ notifier: KernelNotifier) { announcer.withLock { $0 = notifier } }

    /// Where changes are announced to the kernel; nil before `attach`.
    var notifier: KernelNotifier? { announcer.withLock { $0 } }

    /// Task `id` as shown now; ENOENT when it is gone.
    func task(_ id: Int64) throws(Errno) -> TaskEntry {
        guard let entry = table.entry(id) else { throw .noEntry }
        return entry
    }

    /// Task `id`'s place in the waiting line, nil when it has none.
    func place(of id: Int64) throws(Errno) -> Int? {
        let tasks = table.snapshot.tasks
        guard tasks[id] != nil else { throw .noEntry }
        return tasks.place(of: id)
    }

    /// The inode of the folder at `folder` under `files/` (`FilesPath`):
    /// `files/` itself for "", nil when there is no such folder.
    func folderInode(_ folder: String) -> UInt64? { Self.folderInode(folder, in: state) }

    static func folderInode(_ folder: String, in state: StateDirectory) -> UInt64? {
        guard !folder.isEmpty else { return NodeID.files.inode }
        var info = stat()
        guard lstat(state.file(folder), &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return NodeID.stored(fileInode: UInt64(info.st_ino))?.inode
    }

    /// Tells the kernel that the entry `child` at `path` under `files/` is
    /// gone (a plain file or folder removed or moved through the mount),
    /// and that the listing of `files/` changed when it was at the top. The
    /// kernel made these changes itself (they came through the mount), so
    /// the name is mostly gone already; inotify watchers see it go.
    func announceGone(_ child: UInt64, at path: String) {
        let folder = FilesPath.folder(of: path)
        listings.touch(queue: false, files: folder.isEmpty)
        guard let parent = folderInode(folder) else { return }
        var notices: [KernelNotice] = [.deleted(parent: parent, child: child, name: FilesPath.name(of: path))]
        if folder.isEmpty { notices.append(.attributes(NodeID.files.inode)) }
        notifier?.post(notices)
    }

    func time(_ date: Date?) -> timespec {
        guard let date else { return mountedAt }
        let seconds = date.timeIntervalSince1970
        return timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
    }

    /// The attributes of a node of this mount (its owner is the mounting user, R6).
    /// `attributeTimeout` is `KernelCacheTime.live` for nodes whose size moves;
    /// names are trusted for `entryTimeout` (`KernelCacheTime.announced`
    /// unless the name itself can go without a notice).
    func attributes(_ inode: UInt64, _ kind: FileAttributes.Kind, _ permissions: mode_t, size: Int64 = 0,
                    modified: timespec? = nil, attributeTimeout: Double,
                    entryTimeout: Double = KernelCacheTime.announced) -> FileAttributes {
        FileAttributes(inode: inode, kind: kind, permissions: permissions, size: size,
                       modified: modified ?? mountedAt, uid: uid, gid: gid,
                       attributeTimeout: attributeTimeout, entryTimeout: entryTimeout)
    }
}
