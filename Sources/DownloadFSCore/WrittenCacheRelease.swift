/// Which bytes of a data file being downloaded the page cache may let go
/// once a checkpoint has made them durable (R51): the engine drops them
/// (`POSIX_FADV_DONTNEED`) right after the checkpoint's `fdatasync`, when
/// they are clean.
///
/// A download that kept every page it wrote needed as many fresh pages as
/// the file is long: 2 GiB of them for a 2 GiB file. On the bench's VM, which
/// gives free memory back to its host, a page touched for the first time
/// costs a fault on the host, and writing 2 GiB durably took 1.6–3.2 s
/// that way (`dd conv=fdatasync`: 2.3–4.5 s) against 1.0–1.2 s when the
/// pages behind the writer were let go and the kernel handed the same pages
/// out again (docs/performance-history.md, "Issue 27, point 2: the pages
/// behind the writer"). Elsewhere it spares the page cache a file nobody
/// has asked to read yet, which would otherwise push out what other
/// programs use.
///
/// Nothing is let go while the file has a reader (R23: one read it in the
/// last `readerQuiet` seconds): a program reading a download as it arrives
/// reads behind the connection it waits for, while the other connections
/// write ahead of it, and it would find their pages gone (`cat` of a 2 GiB
/// file downloading over nine connections ended 1.10× after the download
/// instead of 1.01–1.04×). The last `keep` bytes of each written range stay
/// cached in any case. Each range is let go from where the last one ended,
/// less `margin`: fadvise drops only the folios wholly inside its range.
public struct WrittenCacheRelease: Sendable, Equatable {
    /// What stays cached behind the end of each written range.
    public static let keep: Int64 = 16 << 20
    /// How far before the last end a new range starts: one folio may have
    /// straddled it.
    public static let margin = BackingCacheRelease.largestFolio
    /// How long after a reader's last read the file counts as unread.
    public static let readerQuiet: Double = 10

    /// What was let go so far.
    public private(set) var released = ByteRanges()

    public init() {}

    /// The ranges to let go now that `durable` is on disk, `readerIdle`
    /// seconds after a reader last read the file (infinity: never). A
    /// download that started over (R18: its durable ranges no longer hold
    /// what was let go) starts counting again.
    public mutating func afterCheckpoint(durable: ByteRanges, readerIdle: Double) -> [Range<Int64>] {
        guard readerIdle >= Self.readerQuiet else { return [] }
        if !released.ranges.allSatisfy({ durable.contains($0) }) { released = ByteRanges() }
        var drop: [Range<Int64>] = []
        for range in durable.ranges {
            let end = range.upperBound - Self.keep
            guard end > range.lowerBound else { continue }
            let wanted = range.lowerBound..<end
            for gap in released.gaps(in: wanted) {
                drop.append(max(wanted.lowerBound, gap.lowerBound - Self.margin)..<gap.upperBound)
            }
            released.insert(wanted)
        }
        return drop
    }
}
