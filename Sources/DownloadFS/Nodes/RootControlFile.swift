import DownloadFSCore
import FuseKit
import Glibc

/// `MOUNT/ctl`: global commands, one per write (R31); reading it shows the
/// settings in force in the same words (`ControlSettings`), made at every
/// open, with its size asked afresh at every `stat` like `status`'s (R7).
struct RootControlFile: OpenableNode, CommandFile {
    let context: NodeContext
    var inode: UInt64 { NodeID.rootCtl.inode }
    var permissions: mode_t { 0o644 }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .regular, permissions, size: Int64(text().count),
                           attributeTimeout: KernelCacheTime.live)
    }

    func open() throws(Errno) -> any OpenFile {
        ControlHandle(context: context, target: .all, settings: text())
    }

    private func text() -> [UInt8] {
        Array(ControlSettings.mount(context.table.settings).utf8)
    }
}
