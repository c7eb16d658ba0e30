import FuseKit
import Glibc

/// `MOUNT/events`: what happens to tasks, one line per change, to each
/// reader from the moment it opened the file (R24). Found by name but not
/// listed, like `wait`, so recursive tools never block on it.
struct EventsFile: OpenableNode {
    let context: NodeContext
    var inode: UInt64 { NodeID.events.inode }
    var permissions: mode_t { 0o444 }

    /// A stream has no size: 0, like a pipe's, and it never changes.
    func attributes() throws(Errno) -> FileAttributes {
        context.attributes(inode, .regular, permissions, attributeTimeout: KernelCacheTime.announced)
    }

    func open() throws(Errno) -> any OpenFile {
        EventsHandle(feed: context.events)
    }
}
