import FuseKit
import Glibc

/// `files/<name>`: a completed download (R40, R41), immutable: the kernel
/// keeps its pages and attributes, and reads are spliced from the file.
struct FinishedFile: OpenableNode, ExtendedAttributesNode {
    let context: NodeContext
    let id: Int64
    var inode: UInt64 { NodeID.finished(id).inode }
    var permissions: mode_t { 0o444 }

    /// The task, if it is still completed (a `files/` entry exists only then).
    private func completed() throws(Errno) -> TaskEntry {
        let entry = try context.task(id)
        guard entry.record.state == .completed else { throw .noEntry }
        return entry
    }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try completed()
        return context.attributes(inode, .regular, permissions, size: entry.record.downloaded,
                                  modified: context.time(OriginAttributes.modified(entry.record)),
                                  attributeTimeout: KernelCacheTime.announced)
    }

    func open() throws(Errno) -> any OpenFile {
        let entry = try completed()
        let fd = Glibc.open(context.state.file(entry.record.name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .opening(errno) }
        return FinishedFileHandle(descriptor: fd, size: entry.record.downloaded)
    }

    func extendedAttribute(_ name: String) throws(Errno) -> [UInt8] {
        try OriginAttributes(try completed().record).value(name)
    }

    func extendedAttributeNames() throws(Errno) -> [String] {
        OriginAttributes(try completed().record).names
    }
}
