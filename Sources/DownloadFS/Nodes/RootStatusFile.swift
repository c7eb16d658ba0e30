import DownloadFSCore
import Engine
import Foundation
import FuseKit
import Glibc

/// `MOUNT/status`: every task as a table (R21), rendered at every open.
struct RootStatusFile: OpenableNode {
    let context: NodeContext
    var inode: UInt64 { NodeID.rootStatus.inode }
    var permissions: mode_t { 0o444 }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .regular, permissions, size: Int64(render().count), attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        SnapshotHandle(render())
    }

    private func render() -> [UInt8] {
        let now = MonotonicClock.now()
        return Array(StatusTable.render(context.table.map { TaskStatusView($0, now: now) }, now: Date()).utf8)
    }
}
