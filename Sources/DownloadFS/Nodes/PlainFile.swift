import CLinux
import DownloadFSCore
import FuseKit
import Glibc

/// `files/<name>` of a file that belongs to no task: what `forget` leaves
/// (R34), or any regular file in STATE/files no task claims. Everything it
/// shows comes from the real file — size, mtime, the attributes stored on
/// it (R41) — since there is no record; mode and owner are the mount's, as
/// for every file in `files/`. `rm` and `mv` act on the file alone.
///
/// Its inode is its backing file's (`NodeID.plain`), which a rename keeps;
/// the name it was found under is only where to look first. Each use checks
/// that the name still names that file, and that no task claims the name
/// (a file being moved in by its task never shows early, R43).
struct PlainFile: OpenableNode, ExtendedAttributesNode, KernelReferencedNode {
    let context: NodeContext
    /// `st_ino` of the backing file.
    let fileInode: UInt64
    let name: String
    var inode: UInt64 { NodeID.plain(fileInode).inode }
    var permissions: mode_t { 0o444 }

    /// The plain file called `name` in STATE/files, if there is one: a
    /// regular file (folders come with R35) whose name no task claims.
    static func named(_ name: String, in context: NodeContext) throws(Errno) -> PlainFile {
        guard !context.table.isNameTaken(name) else { throw .noEntry }
        var info = stat()
        guard lstat(context.state.file(name), &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              NodeID.plain(fileInode: UInt64(info.st_ino)) != nil else { throw .noEntry }
        return PlainFile(context: context, fileInode: UInt64(info.st_ino), name: name)
    }

    /// The backing file now: its name and `stat`. A `mv` through the mount
    /// renames on disk before it tells `PlainFileNames`; a request that
    /// came in between finds the new name on a second look.
    private func located() throws(Errno) -> (name: String, info: stat) {
        var current = name
        for _ in 0..<2 {
            var info = stat()
            if !context.table.isNameTaken(current), lstat(context.state.file(current), &info) == 0,
               info.st_mode & S_IFMT == S_IFREG, UInt64(info.st_ino) == fileInode {
                return (current, info)
            }
            guard let renamed = context.plainNames.name(of: fileInode), renamed != current else { break }
            current = renamed
        }
        throw .noEntry
    }

    func attributes() throws(Errno) -> FileAttributes {
        let info = try located().info
        return context.attributes(inode, .regular, permissions, size: Int64(info.st_size), modified: info.st_mtim,
                                  attributeTimeout: KernelCacheTime.announced)
    }

    func referenced() { context.plainNames.remember(fileInode, name: name) }

    /// As a task's finished file opens (`FinishedFile`): the same handle,
    /// spliced or passed through to the kernel.
    func open() throws(Errno) -> any OpenFile {
        let path = context.state.file(try located().name)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw errno == ENOENT || errno == ELOOP ? .noEntry : .io }
        var info = stat()
        // Replaced between the look and the open: not this node's file.
        guard fstat(fd, &info) == 0, UInt64(info.st_ino) == fileInode, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .noEntry
        }
        return FinishedFileHandle(descriptor: fd, size: Int64(info.st_size))
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        try StoredOriginAttributes(path: context.state.file(try located().name)).value(name)
    }

    func extendedAttributeNames() throws(Errno) -> [String] {
        try StoredOriginAttributes(path: context.state.file(try located().name)).names()
    }

    /// `rm files/<name>`: unlinks the file, nothing else (R34).
    func remove() throws(Errno) {
        let current = try located().name
        guard unlink(context.state.file(current)) == 0 else { throw errno == ENOENT ? .noEntry : Errno(errno) }
        announce(gone: current)
    }

    /// `mv files/<name> files/<newName>` (R34), refused as R40 refuses a
    /// task's: EINVAL for a name R17 would change (the bridge refuses one
    /// that is not UTF-8), EEXIST for a name a task or a file has — never
    /// replacing it (`renameat2` with RENAME_NOREPLACE).
    ///
    /// The task set decides, as for a task's file, against every task's
    /// name (a queued task's too) and the files on disk; the loop renames.
    func rename(to newName: String) throws(Errno) {
        let current = try located().name
        if newName == current { return }
        do { try context.loop.client.renameFile(current, to: newName) } catch {
            switch error {
            case .missing: throw .noEntry
            case .badName: throw .invalid
            case .exists: throw .exists
            case .io(let code): throw Errno(code)
            }
        }
        context.plainNames.renamed(fileInode, to: newName)
        announce(gone: current)
    }

    /// As `TaskChangeNotices` tells of a task's file that went or was
    /// renamed: the old name, and `files/`'s attributes, whose mtime shows
    /// when its listing changed. The kernel made these changes itself
    /// (they came through the mount), so the name is mostly gone already.
    private func announce(gone oldName: String) {
        context.listings.touch(queue: false, files: true)
        context.notifier?.post([.deleted(parent: NodeID.files.inode, child: inode, name: oldName),
                                .attributes(NodeID.files.inode)])
    }
}
