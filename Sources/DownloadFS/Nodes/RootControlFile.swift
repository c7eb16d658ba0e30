import FuseKit
import Glibc

/// `MOUNT/ctl`: global commands, one per write (R31); write-only.
struct RootControlFile: OpenableNode, CommandFile {
    let context: NodeContext
    var inode: UInt64 { NodeID.rootCtl.inode }
    var permissions: mode_t { 0o200 }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .regular, permissions, attributeTimeout: KernelCacheTime.announced)
    }

    func open() throws(Errno) -> any OpenFile {
        RootControlHandle(context: context)
    }
}
