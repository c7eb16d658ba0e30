import FuseKit
import Glibc

/// `queue/new`: URLs written here become tasks (R10–R13); reading it back
/// gives the ids this handle's writes added (R12).
struct QueueNewFile: OpenableNode, CommandFile {
    let context: NodeContext
    var inode: UInt64 { NodeID.queueNew.inode }
    var permissions: mode_t { 0o644 }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .regular, permissions, attributeTimeout: KernelCacheTime.announced)
    }

    /// Opened for no known process: only the last close ends its input.
    func open() throws(Errno) -> any OpenFile {
        try open(by: RequestCaller(pid: 0))
    }

    func open(by caller: RequestCaller) throws(Errno) -> any OpenFile {
        InputHandle(context: context, dropIn: nil, opener: caller)
    }
}
