/// How many connections a task may use and how small a segment may be (R18).
///
/// Asked for — `split=N`, `ctl split N`, `--split N`, `MOUNT/ctl split N` —
/// a task gets N connections with segments down to R18's 1 MiB floor. Not
/// asked for, it gets `defaultSplit` connections but splits only into
/// segments of 20 MiB and more, as aria2's `--min-split-size` does: files
/// under 40 MiB keep one connection, where a second one's round trip and
/// TCP slow start buy little, and the per-connection checkpoint bound (R51)
/// is not multiplied for them.
public struct SplitPolicy: Sendable, Equatable {
    public var split: Int
    public var minimumSegment: Int64

    /// Connections per task when nobody asked (docs/design.md, "Performance").
    public static let defaultSplit = 4
    /// The smallest segment when nobody asked.
    public static let defaultMinimumSegment: Int64 = 20 << 20

    public init(split: Int, minimumSegment: Int64) {
        self.split = split
        self.minimumSegment = minimumSegment
    }

    /// The task's own split first, then the mount's; neither: the default.
    public static func choose(task: Int?, mount: Int?) -> SplitPolicy {
        if let asked = task ?? mount { return SplitPolicy(split: asked, minimumSegment: SegmentPlanner.minimumSegment) }
        return SplitPolicy(split: defaultSplit, minimumSegment: defaultMinimumSegment)
    }
}
