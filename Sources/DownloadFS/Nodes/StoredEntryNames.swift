import DownloadFSCore
import Synchronization

/// The places (`FilesPath`) of the plain files (R34) and folders (R35) the
/// kernel holds an inode of, by the backing entry's inode number: how a
/// request that names only an inode (`getattr`, `open`, `getxattr`,
/// `readdir`) finds its entry in STATE/files.
///
/// A task's nodes are found from their inode alone (`NodeID`); a plain file
/// or a folder has no task, and its inode number (`st_ino`) cannot be opened without
/// privilege (`open_by_handle_at` needs CAP_DAC_READ_SEARCH). The kernel
/// asks about an inode only between a `lookup` that returned it and the
/// `forget` that gives it back (plain `readdir` makes no inodes), so this
/// holds exactly those, counted as libfuse's own inode tables count them:
/// one per entry reply, dropped by `forget`. Its size follows the inodes the
/// kernel keeps (which it gives back under memory pressure), never the
/// number of plain files: a mount over a million of them holds nothing
/// until they are looked at. Measured: `stat` of 100,000 plain files by name
/// grew the daemon by 17 MiB (about 170 bytes an entry, the dictionary's
/// growth included), against about 1.1 KB the kernel keeps for each inode
/// and its name; `drop_caches` then gave every entry back.
///
/// One small lock, held for a dictionary access (and, once the kernel has
/// given back seven eighths of the table's room, for making it smaller);
/// nothing is called under it.
final class StoredEntryNames: Sendable {
    private struct Entry {
        var name: String
        var lookups: UInt64
    }

    private let entries = Mutex<[UInt64: Entry]>([:])

    /// The kernel was given the inode of the file `fileInode` under `name`
    /// (an entry reply): one more lookup, and the name it is known by now.
    func remember(_ fileInode: UInt64, name: String) {
        entries.withLock { entries in
            entries[fileInode, default: Entry(name: name, lookups: 0)].lookups += 1
            entries[fileInode]?.name = name
        }
    }

    /// The name the file `fileInode` was last looked up or renamed under.
    func name(of fileInode: UInt64) -> String? {
        entries.withLock { $0[fileInode]?.name }
    }

    /// `mv` in `files/` kept the file's inode and gave it `name`.
    func renamed(_ fileInode: UInt64, to name: String) {
        entries.withLock { $0[fileInode]?.name = name }
    }

    /// `mv` of the folder `folder` to `newFolder`: every entry inside it
    /// has a new place. A scan of what the kernel holds, which a folder's
    /// `mv` can afford; a request that came in between finds its entry on
    /// a second look (`PlainFile.located`).
    func movedFolder(_ folder: String, to newFolder: String) {
        entries.withLock { entries in
            for (inode, entry) in entries where FilesPath.isInside(entry.name, folder: folder) {
                entries[inode]?.name = FilesPath.moved(entry.name, from: folder, to: newFolder)
            }
        }
    }

    /// The kernel gave back `lookups` of its references (FUSE `forget`).
    ///
    /// More than it was given is a bug in the counting: a debug build traps;
    /// a release build lets the entry go, since the kernel holds the inode no
    /// more either way.
    func forget(_ fileInode: UInt64, lookups: UInt64) {
        entries.withLock { entries in
            guard let entry = entries[fileInode], entry.lookups > lookups else {
                assert(entries[fileInode].map { $0.lookups == lookups } ?? false,
                       "forget of \(lookups) lookups of plain file inode \(fileInode), which has fewer")
                entries[fileInode] = nil
                Self.shrinkIfSparse(&entries)
                return
            }
            entries[fileInode]?.lookups = entry.lookups - lookups
        }
    }

    /// A dictionary keeps its capacity when entries go: once the kernel has
    /// given back most of what it held (memory pressure, `drop_caches`),
    /// the table is made again at the size it needs, so what a listing of
    /// a million files once made the kernel hold is not kept for ever.
    private static func shrinkIfSparse(_ entries: inout [UInt64: Entry]) {
        guard entries.capacity > 1024, entries.count < entries.capacity / 8 else { return }
        var smaller = [UInt64: Entry](minimumCapacity: entries.count * 2)
        for (key, value) in entries { smaller[key] = value }
        entries = smaller
    }

    /// How many inodes are held, and how many the table has room for (tests).
    var count: Int { entries.withLock { $0.count } }
    var capacity: Int { entries.withLock { $0.capacity } }
}
