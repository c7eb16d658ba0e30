/// How many connections a task may use and how small a segment may be (R18).
///
/// Asked for — `split=N`, `ctl split N`, `--split N`, `MOUNT/ctl split N` —
/// a task gets N connections with segments down to R18's 1 MiB floor. Not
/// asked for, the default adapts: a task starts on one connection and opens
/// up to `defaultSplit` only when that one brings less than `slowBelow`
/// after its first second, and then splits only into segments of 20 MiB and
/// more, as aria2's `--min-split-size` does (files under 40 MiB keep one
/// connection). More connections pay where a server or a path caps each
/// one; on a fast link they cost CPU and seeks and win nothing (figures in
/// docs/design.md, "Performance").
public struct SplitPolicy: Sendable, Equatable {
    public var split: Int
    public var minimumSegment: Int64
    /// Start on one connection; go to `split` only while the task is slow.
    public var adaptive: Bool

    /// Connections per task when nobody asked.
    public static let defaultSplit = 4
    /// The smallest segment when nobody asked.
    public static let defaultMinimumSegment: Int64 = 20 << 20
    /// An adaptive task opens more connections while one brings less than this.
    public static let slowBelow: Double = 32 * 1024 * 1024
    /// How long the first connection runs before its speed is judged.
    public static let judgeAfter: Double = 1

    public init(split: Int, minimumSegment: Int64, adaptive: Bool = false) {
        self.split = split
        self.minimumSegment = minimumSegment
        self.adaptive = adaptive
    }

    /// The task's own split first, then the mount's; neither: the default.
    public static func choose(task: Int?, mount: Int?) -> SplitPolicy {
        if let asked = task ?? mount { return SplitPolicy(split: asked, minimumSegment: SegmentPlanner.minimumSegment) }
        return SplitPolicy(split: defaultSplit, minimumSegment: defaultMinimumSegment, adaptive: true)
    }

    /// The split to use now: `split`, or for an adaptive policy 1 until the
    /// task has run `judgeAfter` seconds at less than `slowBelow` bytes/s.
    public func current(runningFor seconds: Double, bytesPerSecond: Double) -> Int {
        guard adaptive else { return split }
        return seconds >= Self.judgeAfter && bytesPerSecond < Self.slowBelow ? split : 1
    }
}
