import DownloadFSCore
import FuseKit

/// What one committed task change made stale in the kernel's caches (R7),
/// worked out from the task as it was shown before and after.
///
/// Names and most attributes may be cached for `KernelCacheTime.announced`,
/// so every change that makes one wrong is told here:
/// - a task removed: each of its directory's names, then `queue/<id>`, and
///   its `files/` entry, are `deleted` (inotify watchers — file managers —
///   see them go, which they would not from `rm files/x` or a cancel); a
///   forgotten one (R34) keeps its `files/` entry, which only stops naming
///   the task's inode (`entry`), so no watcher sees the file go;
/// - its data file renamed (a name from the server, R17, or `mv` in
///   `files/`, R40): the old names are `deleted` (in `queue/<id>/` the
///   data file's name, `TaskDirectoryNames`);
/// - it completes, or stops being completed: the data file's attributes
///   and pages (`contents`), and the `files/` entry that went;
/// - `queue/` or `files/` gains or loses an entry: their attributes (the
///   mtime shows when the listing last changed, `ListingTimes`).
/// A new name needs nothing: the kernel keeps no negative entries of ours
/// (a failed lookup is answered with an error, not cached), and it has no
/// way to tell inotify watchers about a new name (docs/usage.md).
struct TaskChangeNotices {
    private(set) var notices: [KernelNotice] = []
    private(set) var queueListingChanged = false
    private(set) var filesListingChanged = false

    /// `folderInode` finds the inode of a folder under `files/` (R35) whose
    /// entry changed: `files/` itself for "", nil when it is gone.
    init(old: DownloadTask?, new: DownloadTask?, forgotten: Bool = false,
         folderInode: (String) -> UInt64? = { $0.isEmpty ? NodeID.files.inode : nil }) {
        guard let id = (old ?? new)?.taskID else { return }
        let wasCompleted = old?.state == .completed
        let isCompleted = new?.state == .completed
        let taskDir = NodeID.taskDir(id).inode
        switch (old, new) {
        case (nil, nil):
            return
        case (nil, .some):
            queueListingChanged = true
            filesListingChanged = isCompleted
        case (.some(let old), nil):
            for child in TaskDirectory.fixedChildren(id) {
                notices.append(.deleted(parent: taskDir, child: child.node.inode, name: child.name))
            }
            notices.append(.deleted(parent: taskDir, child: NodeID.taskData(id).inode,
                                    name: TaskDirectoryNames.dataFile(ofTaskNamed: old.name)))
            notices.append(.deleted(parent: NodeID.queue.inode, child: taskDir, name: String(id)))
            if wasCompleted && forgotten {
                if let folder = folderInode(old.folder) { notices.append(.entry(parent: folder, name: old.fileName)) }
            } else if wasCompleted {
                forgetFinished(id, old, folderInode)
            }
            queueListingChanged = true
            filesListingChanged = wasCompleted && !forgotten
        case (.some(let old), .some(let new)):
            if old.name != new.name {
                // `status` and `status (1)` are both `status (1)` in queue/<id>/.
                let oldData = TaskDirectoryNames.dataFile(ofTaskNamed: old.name)
                if oldData != TaskDirectoryNames.dataFile(ofTaskNamed: new.name) {
                    notices.append(.deleted(parent: taskDir, child: NodeID.taskData(id).inode, name: oldData))
                }
                if wasCompleted { forgetFinished(id, old, folderInode) }
                filesListingChanged = wasCompleted || isCompleted
            }
            if wasCompleted != isCompleted {
                notices.append(.contents(NodeID.taskData(id).inode))
                if wasCompleted {
                    if old.name == new.name { forgetFinished(id, old, folderInode) }
                    notices.append(.contents(NodeID.finished(id).inode))
                }
                filesListingChanged = true
            }
        }
        if queueListingChanged { notices.append(.attributes(NodeID.queue.inode)) }
        if filesListingChanged { notices.append(.attributes(NodeID.files.inode)) }
    }

    /// The `files/` entry of task `id`, as it was in `old`, is gone.
    private mutating func forgetFinished(_ id: Int64, _ old: DownloadTask, _ folderInode: (String) -> UInt64?) {
        guard let folder = folderInode(old.folder) else { return }
        notices.append(.deleted(parent: folder, child: NodeID.finished(id).inode, name: old.fileName))
    }
}
