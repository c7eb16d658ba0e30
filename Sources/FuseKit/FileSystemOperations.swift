import Glibc

/// What a filesystem implements on top of FuseKit: one method per kernel
/// operation, each returning a value or throwing an `Errno`.
///
/// Inode numbers are the filesystem's own, stable for a node's lifetime;
/// FuseKit keeps no inode table and no lookup counts. It passes the
/// kernel's `forget` on (`forget(_:lookups:)`), so a filesystem that keeps
/// something for an inode while the kernel holds it counts the entry
/// replies itself (see docs/design.md: downloadfs derives most inodes from
/// task ids, which are never reused, and keeps only plain files' names).
/// Methods are called from several FUSE
/// worker threads at once and must be thread-safe. None may block for long,
/// except that `read` may keep its `ReadReply` and answer later.
///
/// Names are always valid UTF-8: the bridge answers a name that is not
/// itself (ENOENT where the name must exist, EINVAL where it would be made),
/// never repairs it (see `LowLevelBridge.name`).
public protocol FileSystemOperations: AnyObject, Sendable {
    /// Each successful lookup hands the kernel one reference to the inode,
    /// given back by `forget`.
    func lookup(parent: UInt64, name: String) throws(Errno) -> FileAttributes
    /// The kernel gave back `lookups` references to `inode` (FUSE `forget`
    /// and `forget_multi`, or a lookup whose reply found no one waiting).
    /// Called with no reply to send; must not block.
    func forget(_ inode: UInt64, lookups: UInt64)
    func attributes(_ inode: UInt64) throws(Errno) -> FileAttributes
    /// chmod, chown, utimensat and truncate (`O_TRUNC` at open): `changes`
    /// says which of them this request asks for, so the filesystem decides.
    func setAttributes(_ inode: UInt64, changes: AttributeChanges, handle: UInt64?) throws(Errno) -> FileAttributes
    func list(_ inode: UInt64) throws(Errno) -> DirectoryListing
    /// `caller` is the thread that opened it (a handle may tell its opener's closes from others', `flush`).
    func open(_ inode: UInt64, flags: Int32, caller: RequestCaller) throws(Errno) -> OpenedFile
    func read(_ inode: UInt64, handle: UInt64, size: Int, offset: Int64, reply: ReadReply)
    /// `caller` is the thread that wrote (for a refusal's log line).
    func write(_ inode: UInt64, handle: UInt64, data: UnsafeRawBufferPointer, offset: Int64,
               caller: RequestCaller) throws(Errno) -> Int
    /// Called on every close(2) of a descriptor — a child's close of its
    /// inherited copy too; its error is what close returns. `caller` is the
    /// thread that closed it. `release` follows the last close.
    func flush(_ inode: UInt64, handle: UInt64, caller: RequestCaller) throws(Errno)
    func release(_ inode: UInt64, handle: UInt64)
    func create(parent: UInt64, name: String, flags: Int32, caller: RequestCaller) throws(Errno) -> (FileAttributes, OpenedFile)
    /// `mkdir`: the new directory's attributes (one reference, as a lookup's).
    func makeDirectory(parent: UInt64, name: String) throws(Errno) -> FileAttributes
    func unlink(parent: UInt64, name: String) throws(Errno)
    func removeDirectory(parent: UInt64, name: String) throws(Errno)
    func rename(parent: UInt64, name: String, newParent: UInt64, newName: String, flags: UInt32) throws(Errno)
    func extendedAttribute(_ inode: UInt64, name: String) throws(Errno) -> [UInt8]
    func extendedAttributeNames(_ inode: UInt64) throws(Errno) -> [String]
    /// statfs(2) of the mount (`df`, a file manager's free space): the
    /// figures of the filesystem where its files are kept.
    func statistics() throws(Errno) -> statvfs
    /// poll(2), select(2) or epoll on an open file: how ready it is now.
    /// `waiter` is there when a poller will sleep on the answer; keep the
    /// newest (it replaces the file's older ones) and `notify` it when the
    /// file becomes ready. A file that has nothing to wait for answers
    /// `.always`, as the kernel would for a filesystem without poll.
    ///
    /// Never ENOSYS: the kernel takes that as "this filesystem does not
    /// poll" and from then on answers `.always` itself for every file of
    /// the mount, so no stream could be polled again; the bridge answers
    /// `.always` in its place. Any other error is POLLERR to the poller.
    func poll(_ inode: UInt64, handle: UInt64, waiter: PollWaiter?) throws(Errno) -> FileReadiness
}
