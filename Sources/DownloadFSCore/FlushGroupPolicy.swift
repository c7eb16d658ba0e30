/// When the files that finished downloading are flushed to disk together
/// (R51, SPEC §9: durability paid in groups, as git's
/// `core.fsyncMethod=batch` and dpkg do).
///
/// Each file's writeback is started as its last byte is written; the files
/// then wait, out of their download slots, for one flush of the whole
/// group. A flush costs about the same for one file as for thirty (one
/// cache flush of the device), so a group is worth waiting a little for;
/// but every file waiting is a file not yet `completed`. The group is
/// flushed once `size` files wait, or once the first of them has waited
/// `deadline` seconds, whichever comes first; at shutdown at once, and
/// when no task is left downloading to bring company (the end of a batch,
/// or a lone download: the wait would be only delay; `ReportPacing`
/// says when, and gives the figures).
/// Measured (docs/performance-history.md, "Issue 27, point 1"): with
/// 1,000 × 64 KiB and 16 active, 8 files/1 ms, 32/4 ms and 128/20 ms gave
/// the same wall time within the noise (about 11 files a group at 32/4 ms);
/// 32/4 ms bounds a file's wait for company at 4 ms.
///
/// `syncfs` writes every dirty page of the filesystem, other programs'
/// too: with a 3 GiB `dd` writing beside, a thousand files took 1.0–2.8 s
/// that way against 1.0 s with a parallel `fdatasync` per file; alone, the
/// `syncfs` group was faster (0.35–0.47 s against 0.49–0.59 s). So a group
/// is flushed whole only while the system holds little dirty data that is
/// not ours (`method`).
public struct FlushGroupPolicy: Sendable, Equatable {
    /// Flush once this many files wait.
    public var size: Int
    /// Flush once the first file has waited this long (seconds).
    public var deadline: Double

    public init(size: Int, deadline: Double) {
        self.size = max(1, size)
        self.deadline = max(0, deadline)
    }

    /// The default (see above).
    public static let standard = FlushGroupPolicy(size: 32, deadline: 0.004)

    /// Dirty bytes (`/proc/meminfo`'s `Dirty`, pages not yet under
    /// writeback) up to which a group is flushed with one `syncfs`: about
    /// 10 ms of this disk's writing, the order of what a `syncfs` saves
    /// over a group's `fdatasync`s. During 1,000 × 64 KiB alone the system
    /// held at most 4 MiB (each file's writeback is started as it ends).
    public static let wholeFilesystemDirtyLimit: Int64 = 8 << 20

    /// How to flush a group while the system holds `dirtyBytes` not yet
    /// under writeback (nil: unknown, as when /proc is not mounted).
    public func method(dirtyBytes: Int64?) -> FlushMethod {
        guard let dirtyBytes, dirtyBytes <= Self.wholeFilesystemDirtyLimit else { return .eachFile }
        return .wholeFilesystem
    }

    /// What to do with `waiting` files, the first of which has waited
    /// `waited` seconds; `draining`: the daemon is shutting down;
    /// `noneDownloading`: no transfer is left that could join the group.
    public func decide(waiting: Int, waited: Double, draining: Bool = false,
                       noneDownloading: Bool = false) -> FlushGroupDecision {
        guard waiting > 0 else { return .idle }
        if draining || noneDownloading || waiting >= size || waited >= deadline { return .flushNow }
        return .flushIn(deadline - waited)
    }
}
