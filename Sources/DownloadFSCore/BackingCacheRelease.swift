/// Which pages of a finished file's backing file (STATE/files/…) the daemon
/// lets go once a read through it has served them.
///
/// Without passthrough (a mount made without `CAP_SYS_ADMIN`) the kernel
/// keeps a read page twice: in the FUSE file's cache, which `keep_cache`
/// keeps for the next reader, and in the backing file's, which the daemon's
/// splice read it into. A 2 GiB file read through `files/` took 4 GiB of
/// page cache, and on the bench's VM such a read dropped to about 270 MB/s
/// somewhere past its first GiB (fresh pages are costly there); cached
/// once, it kept up with a direct read (docs/performance-history.md,
/// "Issue 27, point 3").
///
/// The backing pages are dropped in whole windows, one window behind the
/// read: `POSIX_FADV_DONTNEED` drops only the folios wholly inside its range,
/// and ext4 caches a file in folios of up to 2 MiB, so a range of one
/// 128 KiB request would drop nothing; a window behind leaves alone what a
/// request still in flight just before this one is splicing.
public enum BackingCacheRelease {
    /// The largest folio of a page cache (2 MiB on x86-64): fadvise drops
    /// only whole folios (also `WrittenCacheRelease`'s margin).
    public static let largestFolio: Int64 = 2 << 20
    /// A multiple of the largest folio.
    public static let window: Int64 = 2 * largestFolio

    /// After serving `size` bytes at `offset`: the backing range to drop, or
    /// nil. A read that crosses a window boundary B drops the window that
    /// ends one window before B. Nothing when the kernel does not keep what
    /// it read (`kernelKeeps` false: a `direct_io` handle, such as a data
    /// file opened before its task completed): the backing copy is then the
    /// only one, and the next read needs it.
    public static func afterServing(offset: Int64, size: Int64, kernelKeeps: Bool) -> Range<Int64>? {
        let boundary = (offset + size) / window * window
        guard kernelKeeps, boundary > offset, boundary >= 2 * window else { return nil }
        return (boundary - 2 * window)..<(boundary - window)
    }
}
