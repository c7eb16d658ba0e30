/// One thing the kernel is told about its caches (libfuse's
/// `fuse_lowlevel_notify_*`), so names and attributes it was allowed to
/// keep (`entryTimeout`, `attributeTimeout`) are dropped when they change.
public enum KernelNotice: Sendable, Hashable {
    /// `parent/name` no longer names what it did (a name changed, or the
    /// node went): the kernel forgets the name and the parent's attributes.
    case entry(parent: UInt64, name: String)
    /// `parent/name`, which named `child`, is gone: as `entry`, and
    /// inotify watchers of the parent see it deleted (a file manager drops
    /// it from its view). Nothing happens if the name now names another node.
    case deleted(parent: UInt64, child: UInt64, name: String)
    /// The attributes of `inode` changed (size, mtime): the kernel asks again.
    case attributes(UInt64)
    /// The attributes and the cached pages of `inode`: its content changed.
    case contents(UInt64)
}
