/// Every node of the mount, and its inode number.
///
/// Inodes are computed instead of kept in a table. Task nodes come from
/// task ids, which are never reused (R5 layout, SQLite AUTOINCREMENT), so an
/// inode always names the same node, and `forget` has nothing to free; a
/// renamed file in `files/` keeps its inode because it keeps its task. An
/// entry of `files/` that belongs to no task — a plain file (R34) or a
/// folder (R35) — takes its backing entry's own inode number in
/// STATE/files, which a rename keeps too; its place is found through
/// `StoredEntryNames`.
///
/// Ranges, which never overlap: 1–8 fixed nodes, `0x1000 + id*8 + kind`
/// task nodes (below 2^48), `2^48 + id` `files/` entries of tasks, `2^56 +
/// n` drop-in files (below 2^62), `2^62 + st_ino` plain files and folders.
public enum NodeID: Hashable, Sendable {
    case root, queue, files, rootStatus, rootCtl, rootLog, queueNew
    /// `MOUNT/events` (R24).
    case events
    case taskDir(Int64), taskStatus(Int64), taskURL(Int64), taskCtl(Int64), taskLog(Int64), taskWait(Int64), taskData(Int64)
    /// `files/<name>` of a completed task.
    case finished(Int64)
    /// A file being copied into `queue/` (R14), numbered per open.
    case dropIn(UInt64)
    /// An entry of `files/` that belongs to no task: a plain file (R34) or a
    /// folder (R35), by the inode number of its backing entry in
    /// STATE/files (below 2^62: see `stored(fileInode:)`).
    case stored(UInt64)

    private static let taskBase: UInt64 = 0x1000
    private static let finishedBase: UInt64 = 1 << 48
    private static let dropInBase: UInt64 = 1 << 56
    private static let storedBase: UInt64 = 1 << 62

    /// The node of the plain file whose backing file has inode number
    /// `fileInode`; nil for one at or past 2^62, which would leave the
    /// range (ext4's are 32-bit, tmpfs, btrfs and XFS count far below it).
    public static func stored(fileInode: UInt64) -> NodeID? {
        fileInode < storedBase ? .stored(fileInode) : nil
    }

    public var inode: UInt64 {
        switch self {
        case .root: return 1
        case .queue: return 2
        case .files: return 3
        case .rootStatus: return 4
        case .rootCtl: return 5
        case .rootLog: return 6
        case .queueNew: return 7
        case .events: return 8
        case .taskDir(let id): return Self.taskBase + UInt64(id) * 8
        case .taskStatus(let id): return Self.taskBase + UInt64(id) * 8 + 1
        case .taskURL(let id): return Self.taskBase + UInt64(id) * 8 + 2
        case .taskCtl(let id): return Self.taskBase + UInt64(id) * 8 + 3
        case .taskLog(let id): return Self.taskBase + UInt64(id) * 8 + 4
        case .taskWait(let id): return Self.taskBase + UInt64(id) * 8 + 5
        case .taskData(let id): return Self.taskBase + UInt64(id) * 8 + 6
        case .finished(let id): return Self.finishedBase + UInt64(id)
        case .dropIn(let n): return Self.dropInBase + n
        case .stored(let fileInode): return Self.storedBase + fileInode
        }
    }

    public init?(inode: UInt64) {
        switch inode {
        case 1: self = .root
        case 2: self = .queue
        case 3: self = .files
        case 4: self = .rootStatus
        case 5: self = .rootCtl
        case 6: self = .rootLog
        case 7: self = .queueNew
        case 8: self = .events
        case Self.storedBase...: self = .stored(inode - Self.storedBase)
        case Self.dropInBase...: self = .dropIn(inode - Self.dropInBase)
        case Self.finishedBase...: self = .finished(Int64(inode - Self.finishedBase))
        case Self.taskBase...:
            let id = Int64((inode - Self.taskBase) / 8)
            switch (inode - Self.taskBase) % 8 {
            case 0: self = .taskDir(id)
            case 1: self = .taskStatus(id)
            case 2: self = .taskURL(id)
            case 3: self = .taskCtl(id)
            case 4: self = .taskLog(id)
            case 5: self = .taskWait(id)
            case 6: self = .taskData(id)
            default: return nil
            }
        default: return nil
        }
    }
}
