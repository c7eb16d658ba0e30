import DownloadFSCore
import FuseKit
import Glibc

/// A read-only text file of a task (`status`, `url`, `log`): its content is
/// made again as it is read (every read is fresh, R7: `LiveTextHandle`), its size is that content's,
/// its mtime the time the task was added. A kind says only what its text is
/// and how long the kernel may keep its attributes.
protocol TaskTextFile: OpenableNode {
    var context: NodeContext { get }
    var id: Int64 { get }
    var attributeTimeout: Double { get }
    /// Whether the text grows at its end (a log): a read at its end then
    /// looks for more (`tail -f`); a status is rewritten instead.
    var grows: Bool { get }
    func text(_ entry: TaskEntry) -> [UInt8]
}

extension TaskTextFile {
    var permissions: mode_t { 0o444 }
    var grows: Bool { false }

    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .regular, permissions, size: Int64(text(entry).count),
                                  modified: context.time(entry.record.addedAt), attributeTimeout: attributeTimeout)
    }

    func open() throws(Errno) -> any OpenFile {
        let (context, id, file) = (context, id, self)
        return try LiveTextHandle(grows: grows) { (try? context.task(id)).map(file.text) }
    }
}
