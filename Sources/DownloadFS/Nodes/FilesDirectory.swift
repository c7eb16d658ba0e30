import FuseKit

/// `files/`: every completed task's file by name (R40); `rm` cancels its
/// task (R32), `mv` inside it renames (R40).
struct FilesDirectory: DirectoryNode, UnlinkingDirectory, RenamingDirectory {
    let context: NodeContext
    var inode: UInt64 { NodeID.files.inode }
    var parentInode: UInt64 { NodeID.root.inode }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .directory, 0o755, modified: context.listings.files,
                           attributeTimeout: KernelCacheTime.announced)
    }

    /// The completed task whose file is called `name`.
    private func completed(_ name: String) throws(Errno) -> TaskEntry {
        guard let entry = context.table.task(named: name), entry.record.state == .completed else { throw .noEntry }
        return entry
    }

    func child(named name: String) throws(Errno) -> any Node {
        FinishedFile(context: context, id: try completed(name).id)
    }

    func entries() throws(Errno) -> [DirectoryEntry] {
        context.table.map { entry in
            entry.record.state != .completed ? nil
                : DirectoryEntry(name: entry.record.name, inode: NodeID.finished(entry.id).inode, isDirectory: false)
        }
    }

    func unlink(_ name: String) throws(Errno) {
        let entry = try completed(name)
        do { try context.loop.remove(entry.id) } catch { throw .io }
    }

    func rename(_ name: String, to newName: String, in target: any DirectoryNode) throws(Errno) {
        guard target is FilesDirectory else { throw .crossDevice }
        let entry = try completed(name)
        do { try context.loop.rename(entry.id, to: newName) } catch {
            switch error {
            case .missing: throw .noEntry
            case .badName: throw .invalid
            case .exists: throw .exists
            case .io(let code): throw Errno(code)
            }
        }
    }
}
