import FuseKit

/// A node with children: it finds one by name and lists them.
protocol DirectoryNode: Node {
    /// The inode `..` names in a listing.
    var parentInode: UInt64 { get }
    /// The child called `name`; ENOENT when there is none.
    func child(named name: String) throws(Errno) -> any Node
    /// Adds the children a listing shows (without `.` and `..`), snapshotted at `opendir`.
    func list(into listing: inout DirectoryListing) throws(Errno)
}
