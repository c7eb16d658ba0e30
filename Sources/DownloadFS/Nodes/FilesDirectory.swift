import FuseKit
import Glibc

/// `files/`: a view of STATE/files (R40, R42). A name a task claims shows
/// that task's file once it is completed (and nothing before, R43); `rm`
/// cancels the task (R32), `mv` renames it (R40). Any other regular file
/// there is a plain file (`PlainFile`, R34: what `forget` leaves), whose
/// `rm` and `mv` act on the file alone.
///
/// Nothing per plain file is held: a listing reads the real directory, a
/// lookup `lstat`s one name (docs/design.md, "files/ as a view of STATE/files").
struct FilesDirectory: DirectoryNode, UnlinkingDirectory, RenamingDirectory {
    let context: NodeContext
    var inode: UInt64 { NodeID.files.inode }
    var parentInode: UInt64 { NodeID.root.inode }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .directory, 0o755, modified: context.listings.files,
                           attributeTimeout: KernelCacheTime.announced)
    }

    /// What `name` is in `files/`: a completed task's file, or a plain file.
    private enum Child {
        case task(TaskEntry)
        case plain(PlainFile)
    }

    private func find(_ name: String) throws(Errno) -> Child {
        if let entry = context.table.task(named: name) {
            guard entry.record.state == .completed else { throw .noEntry }
            return .task(entry)
        }
        return .plain(try PlainFile.named(name, in: context))
    }

    func child(named name: String) throws(Errno) -> any Node {
        switch try find(name) {
        case .task(let entry): return FinishedFile(context: context, id: entry.id)
        case .plain(let file): return file
        }
    }

    func list(into listing: inout DirectoryListing) throws(Errno) {
        context.table.forEachTask { task in
            guard task.state == .completed else { return }
            listing.append(task.name, inode: NodeID.finished(task.taskID).inode, isDirectory: false)
        }
        listPlainFiles(into: &listing)
    }

    /// The plain files, as `readdir` of STATE/files finds them: names no
    /// task claims (a completed task's file is listed above, an unfinished
    /// one's never, R43), of regular files only (folders come with R35),
    /// valid UTF-8 (the bridge finds no other name), with an inode number
    /// `NodeID.plain` can hold.
    private func listPlainFiles(into listing: inout DirectoryListing) {
        guard let directory = opendir(context.state.filesDir) else { return }
        defer { closedir(directory) }
        while let found = readdir(directory) {
            let type = Int(found.pointee.d_type)
            guard type == DT_REG || type == DT_UNKNOWN,
                  let name = Self.name(of: found), name != ".", name != "..",
                  !context.table.isNameTaken(name) else { continue }
            var fileInode = UInt64(found.pointee.d_ino)
            if type == DT_UNKNOWN {
                var info = stat()
                guard fstatat(dirfd(directory), name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                      info.st_mode & S_IFMT == S_IFREG else { continue }
                fileInode = UInt64(info.st_ino)
            }
            guard let node = NodeID.plain(fileInode: fileInode) else { continue }
            listing.append(name, inode: node.inode, isDirectory: false)
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
        }
    }

    func rename(_ name: String, to newName: String, in target: any DirectoryNode) throws(Errno) {
        guard target is FilesDirectory else { throw .crossDevice }
        switch try find(name) {
        case .task(let entry):
            do { try context.loop.client.rename(entry.id, to: newName) } catch {
                switch error {
                case .missing: throw .noEntry
                case .badName: throw .invalid
                case .exists: throw .exists
                case .io(let code): throw Errno(code)
                }
            }
        case .plain(let file):
            try file.rename(to: newName)
        }
    }
}
