import FuseKit
import Glibc

/// A file of a task's directory whose attributes change only with the task
/// itself (`ctl`, `wait`): they are cached for `KernelCacheTime.announced`,
/// since the task's removal is announced to the kernel.
protocol StableTaskFile: OpenableNode {
    var context: NodeContext { get }
    var id: Int64 { get }
}

extension StableTaskFile {
    func attributes() throws(Errno) -> FileAttributes {
        let entry = try context.task(id)
        return context.attributes(inode, .regular, permissions, modified: context.time(entry.record.addedAt),
                                  attributeTimeout: KernelCacheTime.announced)
    }
}
