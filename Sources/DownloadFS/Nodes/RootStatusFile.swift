import DownloadFSCore
import Engine
import Foundation
import FuseKit
import Glibc

/// `MOUNT/status`: every task as a table (R21), streamed from a snapshot
/// taken at open, and again at each read from the start (R7).
struct RootStatusFile: OpenableNode {
    let context: NodeContext
    var inode: UInt64 { NodeID.rootStatus.inode }
    var permissions: mode_t { 0o444 }
    /// Up to this many tasks `stat` gives the table's exact size, which
    /// takes rendering it; past it, 0, as /proc files do: the file is read
    /// to its end (direct I/O), and a `stat` must not cost a whole render.
    static let sizedUpTo = 2_000

    func attributes() throws(Errno) -> FileAttributes {
        let now = context.table.snapshot
        var size: Int64 = 0
        if now.0.tasks.count <= Self.sizedUpTo {
            size = RootStatusHandle { now }.renderedSize()
        }
        return context.attributes(inode, .regular, permissions, size: size, attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        let table = context.table
        return RootStatusHandle { table.snapshot }
    }
}
