import FuseKit

/// One kind of entry of the tree (SPEC §2): the root, `queue/`, a task's
/// `status`, its data file… Every kind is its own type that implements the
/// few operations it supports through the protocols beside this one
/// (go-fuse's `fs/` habit); `DownloadFileSystem` routes each kernel request
/// to the node its inode names and answers everything else in one place.
///
/// Nodes are small values made per request from an inode (`NodeID`); what
/// they show comes from the `TaskTable` and the state dir through
/// `NodeContext`, so a node never goes stale.
protocol Node: Sendable {
    var inode: UInt64 { get }
    /// What `stat` shows, and how long the kernel may keep it (`KernelCacheTime`).
    /// Throws ENOENT when the node's task is gone.
    func attributes() throws(Errno) -> FileAttributes
}
