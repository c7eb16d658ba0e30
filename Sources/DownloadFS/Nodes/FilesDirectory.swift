import DownloadFSCore
import FuseKit
import Glibc

/// `files/` or a folder in it (R35): a view of the same place in
/// STATE/files (R40, R42). A place a task claims shows that task's file
/// once it is completed (and nothing before, R43); `rm` cancels the task
/// (R32), `mv` renames or moves it (R40). Any other regular file there is a
/// plain file (`PlainFile`, R34: what `forget` leaves), whose `rm` and `mv`
/// act on the file alone; any directory is a folder, which `mkdir` makes,
/// `rmdir` removes when empty and `mv` moves with the tasks in it.
///
/// Nothing per plain file or folder is held: a listing reads the real
/// directory, a lookup `lstat`s one place (docs/design.md, "files/ as a
/// view of STATE/files").
struct FilesDirectory: DirectoryNode, UnlinkingDirectory, RenamingDirectory, RemovingDirectory, MakingDirectory,
                       KernelReferencedNode {
    let context: NodeContext
    /// Its place under `files/` (`FilesPath`): "" for `files/` itself.
    let folder: String
    /// The backing directory's inode number (a folder's node, `NodeID.stored`); nil for `files/` itself.
    let folderInode: UInt64?

    /// `files/` itself.
    init(context: NodeContext) {
        self.init(context: context, folder: "", folderInode: nil)
    }

    init(context: NodeContext, folder: String, folderInode: UInt64?) {
        self.context = context
        self.folder = folder
        self.folderInode = folderInode
    }

    var inode: UInt64 { folderInode.map { NodeID.stored($0).inode } ?? NodeID.files.inode }

    var parentInode: UInt64 {
        guard !folder.isEmpty else { return NodeID.root.inode }
        return context.folderInode(FilesPath.folder(of: folder)) ?? NodeID.files.inode
    }

    /// Its place now: "" for `files/` itself (nothing to look up), else
    /// the folder's, found by `locatedFolder`.
    private func located() throws(Errno) -> String {
        guard let folderInode else { return "" }
        return try locatedFolder(folderInode).place
    }

    /// A folder's place now: the one it was found under, or (a `mv` of it
    /// or of a folder above it came in between) the one `StoredEntryNames`
    /// has since; its `stat` too.
    private func locatedFolder(_ folderInode: UInt64) throws(Errno) -> (place: String, info: stat) {
        var info = stat()
        var current = folder
        for _ in 0..<2 {
            if lstat(context.state.file(current), &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
               UInt64(info.st_ino) == folderInode {
                return (current, info)
            }
            guard let moved = context.storedNames.name(of: folderInode), moved != current else { break }
            current = moved
        }
        throw .noEntry
    }

    func attributes() throws(Errno) -> FileAttributes {
        guard let folderInode else {
            return context.attributes(inode, .directory, 0o755, modified: context.listings.files,
                                      attributeTimeout: KernelCacheTime.announced)
        }
        // A folder's mtime is its backing directory's, which moves with
        // every entry made or removed in it: asked afresh each time.
        return context.attributes(inode, .directory, 0o755, modified: try locatedFolder(folderInode).info.st_mtim,
                                  attributeTimeout: KernelCacheTime.live)
    }

    func referenced() {
        if let folderInode { context.storedNames.remember(folderInode, name: folder) }
    }

    /// What `name` is in this folder: a completed task's file, a plain file or a folder.
    private enum Child {
        case task(TaskEntry)
        case plain(PlainFile)
        case folder(FilesDirectory)
    }

    private func find(_ name: String) throws(Errno) -> Child {
        let path = FilesPath.join(try located(), name)
        if let entry = context.table.task(named: path) {
            guard entry.record.state == .completed else { throw .noEntry }
            return .task(entry)
        }
        guard !context.table.isNameTaken(path) else { throw .noEntry }
        var info = stat()
        guard lstat(context.state.file(path), &info) == 0,
              let node = NodeID.stored(fileInode: UInt64(info.st_ino)), case .stored(let fileInode) = node
        else { throw .noEntry }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .plain(PlainFile(context: context, fileInode: fileInode, name: path))
        case S_IFDIR: return .folder(FilesDirectory(context: context, folder: path, folderInode: fileInode))
        default: throw .noEntry
        }
    }

    func child(named name: String) throws(Errno) -> any Node {
        switch try find(name) {
        case .task(let entry): return FinishedFile(context: context, id: entry.id)
        case .plain(let file): return file
        case .folder(let folder): return folder
        }
    }

    func list(into listing: inout DirectoryListing) throws(Errno) {
        let here = try located()
        context.table.forEachTask { task in
            guard task.state == .completed, FilesPath.folder(of: task.name) == here else { return }
            listing.append(task.fileName, inode: NodeID.finished(task.taskID).inode, isDirectory: false)
        }
        listStoredEntries(of: here, into: &listing)
    }

    /// The plain files and folders, as `readdir` of the backing directory
    /// finds them: places no task claims (a completed task's file is listed
    /// above, an unfinished one's never, R43), of regular files and
    /// directories only, valid UTF-8 (the bridge finds no other name),
    /// with an inode number `NodeID.stored` can hold.
    private func listStoredEntries(of here: String, into listing: inout DirectoryListing) {
        guard let directory = opendir(here.isEmpty ? context.state.filesDir : context.state.file(here)) else { return }
        defer { closedir(directory) }
        while let found = readdir(directory) {
            var type = Int(found.pointee.d_type)
            guard type == DT_REG || type == DT_DIR || type == DT_UNKNOWN,
                  let name = Self.name(of: found), name != ".", name != "..",
                  !context.table.isNameTaken(FilesPath.join(here, name)) else { continue }
            var fileInode = UInt64(found.pointee.d_ino)
            if type == DT_UNKNOWN {
                var info = stat()
                guard fstatat(dirfd(directory), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                type = info.st_mode & S_IFMT == S_IFREG ? DT_REG : info.st_mode & S_IFMT == S_IFDIR ? DT_DIR : DT_UNKNOWN
                guard type != DT_UNKNOWN else { continue }
                fileInode = UInt64(info.st_ino)
            }
            guard let node = NodeID.stored(fileInode: fileInode) else { continue }
            listing.append(name, inode: node.inode, isDirectory: type == DT_DIR)
        }
    }

    /// The entry's name, nil when it is not valid UTF-8.
    private static func name(of entry: UnsafeMutablePointer<dirent>) -> String? {
        withUnsafeBytes(of: &entry.pointee.d_name) { raw in
            String(validating: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }

    func unlink(_ name: String) throws(Errno) {
        switch try find(name) {
        case .task(let entry):
            do { try context.loop.client.remove(entry.id) } catch { throw .io }
        case .plain(let file):
            try file.remove()
        case .folder:
            throw .isDirectory
        }
    }

    /// `rmdir` of an empty folder (R35). A folder that holds an unfinished
    /// task's place may go: the task makes it again when it completes.
    func removeDirectory(_ name: String) throws(Errno) {
        guard case .folder(let child) = try find(name) else { throw .notDirectory }
        let path = try child.located()
        guard rmdir(context.state.file(path)) == 0 else { throw Errno(errno) }
        context.announceGone(child.inode, at: path)
    }

    /// `mkdir` (R35), decided by the task set against every task's place
    /// (a queued task's too), made by the loop.
    func makeDirectory(_ name: String) throws(Errno) -> any Node {
        let path = FilesPath.join(try located(), name)
        do { try context.loop.client.makeFolder(path) } catch { throw Errno(error) }
        context.listings.touch(queue: false, files: folder.isEmpty)
        guard case .folder(let made) = try find(name) else { throw .io }
        return made
    }

    func rename(_ name: String, to newName: String, in target: any DirectoryNode) throws(Errno) {
        guard let target = target as? FilesDirectory else { throw .crossDevice }
        let newPath = FilesPath.join(try target.located(), newName)
        switch try find(name) {
        case .task(let entry):
            do { try context.loop.client.rename(entry.id, to: newPath) } catch { throw Errno(error) }
        case .plain(let file):
            try file.rename(to: newPath)
        case .folder(let child):
            let path = try child.located()
            if newPath == path { return }
            do { try context.loop.client.renameFile(path, to: newPath, isFolder: true) } catch { throw Errno(error) }
            context.storedNames.renamed(child.folderInode ?? 0, to: newPath)
            context.storedNames.movedFolder(path, to: newPath)
            context.announceGone(child.inode, at: path)
        }
    }

}
