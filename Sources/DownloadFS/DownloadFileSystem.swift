import DownloadFSCore
import FuseKit
import Glibc

/// The downloadfs tree (SPEC §2) on top of FuseKit: a thin router.
///
/// Each kernel request names an inode; `node(_:)` turns it into the node of
/// its kind (`Nodes/`), which implements only the operations it supports.
/// Whatever a kind does not support is answered here, in one place: a
/// lookup or listing in a file is ENOTDIR, opening a directory EISDIR, a
/// write to a read-only file or a read of a write-only one EACCES (R6),
/// creating a file anywhere but `queue/` EACCES, removing what a directory
/// does not let go EPERM. Errors are errno here and nowhere else.
final class DownloadFileSystem: FileSystemOperations, Sendable {
    private let context: NodeContext
    private let handles = HandleTable()

    /// `events` is the feed `MOUNT/events` reads; the loop publishes to it.
    init(controller: TaskLoop, events: EventFeed) {
        context = NodeContext(loop: controller, events: events)
    }

    /// From here on, every committed task change and every drop-in file
    /// that goes is announced to the kernel through `notifier` (R7). Called
    /// once, before the loop starts.
    func announceChanges(through notifier: KernelNotifier) {
        context.attach(notifier)
        let (listings, state) = (context.listings, context.state)
        context.loop.onChange = { changes in
            var (notices, queue, files) = ([KernelNotice](), false, false)
            for (old, new, forgotten) in changes {
                let change = TaskChangeNotices(old: old, new: new, forgotten: forgotten,
                                               folderInode: { NodeContext.folderInode($0, in: state) })
                notices += change.notices
                queue = queue || change.queueListingChanged
                files = files || change.filesListingChanged
            }
            listings.touch(queue: queue, files: files)
            if !notices.isEmpty { notifier.post(notices) }
        }
    }

    // MARK: - inode → node

    /// The node an inode names. Task nodes are made whether or not the task
    /// still exists; their operations answer ENOENT when it does not. A plain
    /// file is found by the name the kernel last looked it up under.
    private func node(_ inode: UInt64) throws(Errno) -> any Node {
        guard let id = NodeID(inode: inode) else { throw .noEntry }
        switch id {
        case .root: return RootDirectory(context: context)
        case .queue: return QueueDirectory(context: context)
        case .files: return FilesDirectory(context: context)
        case .rootStatus: return RootStatusFile(context: context)
        case .rootCtl: return RootControlFile(context: context)
        case .rootLog: return RootLogFile(context: context)
        case .queueNew: return QueueNewFile(context: context)
        case .events: return EventsFile(context: context)
        case .dropIn(let number): return DropInFile(context: context, number: number)
        case .taskDir(let task): return TaskDirectory(context: context, id: task)
        case .taskStatus(let task): return TaskStatusFile(context: context, id: task)
        case .taskURL(let task): return TaskURLFile(context: context, id: task)
        case .taskCtl(let task): return TaskControlFile(context: context, id: task)
        case .taskLog(let task): return TaskLogFile(context: context, id: task)
        case .taskWait(let task): return TaskWaitFile(context: context, id: task)
        case .taskData(let task): return TaskDataFile(context: context, id: task)
        case .finished(let task): return FinishedFile(context: context, id: task)
        case .stored(let fileInode):
            // A plain file or a folder: what its backing entry is, where the kernel last found it.
            guard let path = context.storedNames.name(of: fileInode) else { throw .noEntry }
            var info = stat()
            if lstat(context.state.file(path), &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                return FilesDirectory(context: context, folder: path, folderInode: fileInode)
            }
            return PlainFile(context: context, fileInode: fileInode, name: path)
        }
    }

    private func directory(_ inode: UInt64) throws(Errno) -> any DirectoryNode {
        guard let directory = try node(inode) as? any DirectoryNode else { throw .notDirectory }
        return directory
    }

    private func file(_ handle: UInt64) throws(Errno) -> any OpenFile {
        guard let file = handles.file(handle) else { throw .badHandle }
        return file
    }

    // MARK: - FileSystemOperations

    func lookup(parent: UInt64, name: String) throws(Errno) -> FileAttributes {
        try handOut(try directory(parent).child(named: name))
    }

    /// The attributes of a node whose inode an entry reply hands the kernel
    /// (`lookup`, `mkdir`): one reference more for what keeps its place.
    private func handOut(_ node: any Node) throws(Errno) -> FileAttributes {
        let attributes = try node.attributes()
        (node as? any KernelReferencedNode)?.referenced()
        return attributes
    }

    /// The kernel let go of `lookups` references to `inode`; only plain
    /// files keep anything for them (`StoredEntryNames`).
    func forget(_ inode: UInt64, lookups: UInt64) {
        if case .stored(let fileInode) = NodeID(inode: inode) {
            context.storedNames.forget(fileInode, lookups: lookups)
        }
    }

    /// `df MOUNT` shows the state dir's filesystem, where downloads land:
    /// what tells a user whether the next one fits (sshfs and rclone pass
    /// their backing store's on the same way).
    func statistics() throws(Errno) -> statvfs {
        var figures = statvfs()
        guard statvfs(context.state.filesDir, &figures) == 0 else { throw Errno(errno) }
        return figures
    }

    func attributes(_ inode: UInt64) throws(Errno) -> FileAttributes {
        try node(inode).attributes()
    }

    /// R6: mode, owner and times are the mount's, never changed, so chmod,
    /// chown and touch are EACCES everywhere — answering 0 and changing
    /// nothing would tell the user it worked — but on a file being copied
    /// into `queue/`, which is gone at its close. The one other change
    /// accepted is a cut to size 0 (`O_TRUNC`, as in `echo URL > queue/new`)
    /// of the files whose writes are commands, not content; it changes
    /// nothing either.
    func setAttributes(_ inode: UInt64, changes: AttributeChanges, handle: UInt64?) throws(Errno) -> FileAttributes {
        let node = try node(inode)
        // A copier that keeps metadata (`cp -a`, `cp -p`) sets the mode,
        // owner and times of a file it copies into `queue/` (R14) before
        // closing it: nothing to keep on a file that is input, but refusing
        // would fail a copy whose URLs were queued.
        if changes.changesMetadata, !(node is DropInFile) { throw .accessDenied }
        if let size = changes.size, !(node is any CommandFile) || size != 0 { throw .accessDenied }
        return try node.attributes()
    }

    func list(_ inode: UInt64) throws(Errno) -> DirectoryListing {
        let directory = try directory(inode)
        var listing = DirectoryListing()
        listing.append(".", inode: inode, isDirectory: true)
        listing.append("..", inode: directory.parentInode, isDirectory: true)
        try directory.list(into: &listing)
        return listing
    }

    func open(_ inode: UInt64, flags: Int32, caller: RequestCaller) throws(Errno) -> OpenedFile {
        let node = try node(inode)
        if node is any DirectoryNode { throw .isDirectory }
        guard let openable = node as? any OpenableNode else { throw .accessDenied }
        // Checked here as well as by default_permissions: root bypasses mode bits.
        let mode = flags & O_ACCMODE
        let reads = mode == O_RDONLY || mode == O_RDWR
        let writes = mode == O_WRONLY || mode == O_RDWR || flags & O_TRUNC != 0
        if reads && openable.permissions & 0o400 == 0 { throw .accessDenied }
        if writes && openable.permissions & 0o200 == 0 { throw .accessDenied }
        return opened(try openable.open(by: caller))
    }

    /// Registers a handle and says how the kernel may treat it.
    private func opened(_ file: any OpenFile) -> OpenedFile {
        OpenedFile(handle: handles.register(file), directIO: file.caching == .none, keepCache: file.caching == .keep,
                   noFlush: !(file is any FileFlusher), backing: file.backing, stream: file.isStream)
    }

    func read(_ inode: UInt64, handle: UInt64, size: Int, offset: Int64, reply: ReadReply) {
        guard let file = handles.file(handle) else { reply.error(.badHandle); return }
        guard let reader = file as? any FileReader else { reply.error(.badHandle); return }
        reader.read(size: size, offset: offset, reply: reply)
    }

    func write(_ inode: UInt64, handle: UInt64, data: UnsafeRawBufferPointer, offset: Int64,
               caller: RequestCaller) throws(Errno) -> Int {
        guard let writer = try file(handle) as? any FileWriter else { throw .badHandle }
        return try writer.write(data, offset: offset, caller: caller)
    }

    func flush(_ inode: UInt64, handle: UInt64, caller: RequestCaller) throws(Errno) {
        try (file(handle) as? any FileFlusher)?.flush(caller: caller)
    }

    func release(_ inode: UInt64, handle: UInt64) {
        (handles.remove(handle) as? any FileReleaser)?.release()
    }

    func create(parent: UInt64, name: String, flags: Int32, caller: RequestCaller) throws(Errno) -> (FileAttributes, OpenedFile) {
        let directory = try directory(parent)
        guard let creator = directory as? any CreatingDirectory else { throw .accessDenied }
        let (node, file) = try creator.create(name, by: caller)
        let attributes: FileAttributes
        do { attributes = try node.attributes() } catch {
            (file as? any FileReleaser)?.release()
            throw error
        }
        return (attributes, opened(file))
    }

    /// `mkdir` where a directory lets it (`files/`, R35); EPERM elsewhere (R6).
    func makeDirectory(parent: UInt64, name: String) throws(Errno) -> FileAttributes {
        guard let maker = try directory(parent) as? any MakingDirectory else { throw .notPermitted }
        return try handOut(try maker.makeDirectory(name))
    }

    func unlink(parent: UInt64, name: String) throws(Errno) {
        let directory = try directory(parent)
        if let unlinking = directory as? any UnlinkingDirectory { return try unlinking.unlink(name) }
        throw try directory.child(named: name) is any DirectoryNode ? .isDirectory : .notPermitted
    }

    func removeDirectory(parent: UInt64, name: String) throws(Errno) {
        let directory = try directory(parent)
        if let removing = directory as? any RemovingDirectory { return try removing.removeDirectory(name) }
        throw try directory.child(named: name) is any DirectoryNode ? .notPermitted : .notDirectory
    }

    func rename(parent: UInt64, name: String, newParent: UInt64, newName: String, flags: UInt32) throws(Errno) {
        guard let renaming = try directory(parent) as? any RenamingDirectory else { throw .notPermitted }
        try renaming.rename(name, to: newName, in: try directory(newParent))
    }

    /// Only a `FilePoller` handle (`events`) ever waits; every other file
    /// is always ready, as it was when the kernel answered for us.
    func poll(_ inode: UInt64, handle: UInt64, waiter: PollWaiter?) throws(Errno) -> FileReadiness {
        guard let poller = try file(handle) as? any FilePoller else { return .always }
        return poller.poll(waiter)
    }

    func extendedAttribute(_ inode: UInt64, name: String) throws(Errno) -> [UInt8] {
        guard let node = try node(inode) as? any ExtendedAttributesNode else { throw .noAttribute }
        return try node.extendedAttribute(name)
    }

    func extendedAttributeNames(_ inode: UInt64) throws(Errno) -> [String] {
        guard let node = try node(inode) as? any ExtendedAttributesNode else { return [] }
        return try node.extendedAttributeNames()
    }
}
