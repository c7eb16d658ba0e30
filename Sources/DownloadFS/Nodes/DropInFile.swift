import FuseKit

/// A file being copied into `queue/` (R14): made by `create`, which also
/// opens it; it cannot be opened again, and it goes when that handle is
/// released. Its name is never cached by the kernel (entry timeout 0): it
/// goes without a change of any task.
struct DropInFile: CommandFile {
    let context: NodeContext
    let number: UInt64
    var inode: UInt64 { NodeID.dropIn(number).inode }

    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .regular, 0o644, attributeTimeout: KernelCacheTime.live,
                           entryTimeout: KernelCacheTime.live)
    }
}
