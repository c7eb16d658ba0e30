import FuseKit

/// A node with children: it finds one by name and lists them.
protocol DirectoryNode: Node {
    /// The inode `..` names in a listing.
    var parentInode: UInt64 { get }
    /// The child called `name`; ENOENT when there is none.
    func child(named name: String) throws(Errno) -> any Node
    /// The children a listing shows (without `.` and `..`), snapshotted at `opendir`.
    func entries() throws(Errno) -> [DirectoryEntry]
}
