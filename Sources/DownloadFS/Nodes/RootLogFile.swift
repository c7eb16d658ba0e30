import FuseKit
import Glibc

/// `MOUNT/log`: the daemon's event log (tasks added, rejected input, errors).
struct RootLogFile: OpenableNode {
    let context: NodeContext
    var inode: UInt64 { NodeID.rootLog.inode }
    var permissions: mode_t { 0o444 }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .regular, permissions, size: Int64(context.log.daemonSize()),
                           attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        let log = context.log
        return try LiveTextHandle(grows: true) { Array(log.daemonText().utf8) }
    }
}
