import CLinux
import DownloadFSCore
import FuseKit
import Glibc

/// `files/<name>` (or `files/FOLDER/<name>`, R35) of a file that belongs to no task: what `forget` leaves
/// (R34), or any regular file in STATE/files no task claims. Everything it
/// shows comes from the real file — size, mtime, the attributes stored on
/// it (R41) — since there is no record; mode and owner are the mount's, as
/// for every file in `files/`. `rm` and `mv` act on the file alone.
///
/// Its inode is its backing file's (`NodeID.stored`), which a rename keeps;
/// the place it was found under is only where to look first. Each use checks
/// that the name still names that file, and that no task claims the name
/// (a file being moved in by its task never shows early, R43).
struct PlainFile: OpenableNode, ExtendedAttributesNode, KernelReferencedNode {
    let context: NodeContext
    /// `st_ino` of the backing file.
    let fileInode: UInt64
    /// Its place under `files/` (`FilesPath`) when it was found.
    let name: String
    var inode: UInt64 { NodeID.stored(fileInode).inode }
    var permissions: mode_t { 0o444 }

    /// The backing file now: its name and `stat`. A `mv` through the mount
    /// renames on disk before it tells `StoredEntryNames`; a request that
    /// came in between finds the new name on a second look.
    private func located() throws(Errno) -> (name: String, info: stat) {
        var current = name
        for _ in 0..<2 {
            var info = stat()
            if !context.table.isNameTaken(current), lstat(context.state.file(current), &info) == 0,
               info.st_mode & S_IFMT == S_IFREG, UInt64(info.st_ino) == fileInode {
                return (current, info)
            }
            guard let renamed = context.storedNames.name(of: fileInode), renamed != current else { break }
            current = renamed
        }
        throw .noEntry
    }

    func attributes() throws(Errno) -> FileAttributes {
        let info = try located().info
        return context.attributes(inode, .regular, permissions, size: Int64(info.st_size), modified: info.st_mtim,
                                  attributeTimeout: KernelCacheTime.announced)
    }

    func referenced() { context.storedNames.remember(fileInode, name: name) }

    /// As a task's finished file opens (`FinishedFile`): the same handle,
    /// spliced or passed through to the kernel.
    func open() throws(Errno) -> any OpenFile {
        let path = context.state.file(try located().name)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw errno == ENOENT || errno == ELOOP ? .noEntry : .opening(errno) }
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
        context.announceGone(inode, at: current)
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
        do { try context.loop.client.renameFile(current, to: newName) } catch { throw Errno(error) }
        context.storedNames.renamed(fileInode, to: newName)
        context.announceGone(inode, at: current)
    }
}
