import CFuse
import Glibc
import Synchronization

/// Which open files the kernel reads by itself (FUSE passthrough, Linux
/// 6.9+): a file opened with a backing descriptor is read straight from it,
/// with no request and no copy through the daemon.
///
/// The kernel holds one backing file per inode while any of the inode's
/// files is open, and refuses (EIO) to open an inode both ways at once. So
/// one backing id serves every open of an inode until the last is released,
/// and an inode already open through the daemon stays so until then. The
/// first registration that fails (no root: EPERM; a kernel or libfuse
/// without passthrough) turns passthrough off for the mount, so an inode is
/// never half one way and half the other.
///
/// The lock is held across the registering ioctl: it only takes a reference
/// to an open file in the kernel, and two opens of one inode must not make
/// two backing ids.
final class PassthroughFiles: Sendable {
    private struct Inode {
        /// nil: its files are read through the daemon.
        var backing: Int32?
        var opens: Int
    }

    private struct Table {
        /// Off until `enable` succeeds, and again after any refusal.
        var on = false
        /// Inodes with files open that came through `open`.
        var inodes: [UInt64: Inode] = [:]
    }

    /// Set once, before the session's loop starts; read-only after.
    nonisolated(unsafe) private var session: OpaquePointer?
    private let table = Mutex(Table())

    func attach(_ session: OpaquePointer?) { self.session = session }

    /// Tries passthrough once the kernel's INIT has been answered: nil when
    /// files will be read by the kernel, else why not (for the daemon log).
    func enable() -> String? {
        guard cfuse_passthrough_asked() != 0 else {
            return "the kernel does not offer FUSE passthrough (Linux 6.9 or later)"
        }
        // A registration that works is the only sure test (root, kernel config).
        let fd = Glibc.open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        let id = cfuse_backing_open(session, fd)
        guard id > 0 else {
            return "the kernel refused a backing file: \(String(cString: strerror(-id)))"
                + (id == -EPERM ? " (it needs root)" : "")
        }
        cfuse_backing_close(session, id)
        table.withLock { $0.on = true }
        return nil
    }

    /// The backing id to answer an open of `inode` with, or nil: read through the daemon.
    func open(_ inode: UInt64, descriptor: Int32) -> Int32? {
        let session = session
        return table.withLock { table -> Int32? in
            if let known = table.inodes[inode] {
                table.inodes[inode]?.opens = known.opens + 1
                return known.backing
            }
            var backing: Int32?
            if table.on {
                let id = cfuse_backing_open(session, descriptor)
                if id > 0 { backing = id } else { table.on = false }
            }
            table.inodes[inode] = Inode(backing: backing, opens: 1)
            return backing
        }
    }

    /// A file of `inode` was released: every release of an inode that came
    /// through `open` matches one of its opens (other inodes are not here).
    func release(_ inode: UInt64) {
        let session = session
        table.withLock { table in
            guard var known = table.inodes[inode] else { return }
            known.opens -= 1
            if known.opens > 0 {
                table.inodes[inode] = known
                return
            }
            table.inodes[inode] = nil
            if let backing = known.backing { cfuse_backing_close(session, backing) }
        }
    }
}
