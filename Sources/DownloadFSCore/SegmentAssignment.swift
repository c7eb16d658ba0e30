/// What a free connection of a segmented download fetches next (R18), as
/// `SegmentPlanner.next` decides it.
public enum SegmentAssignment: Sendable, Equatable {
    /// Bytes no connection holds and not on disk, taken whole: the start of a
    /// download, or holes left by a crash or a connection that was dropped.
    case gap(Range<Int64>)
    /// Half of a busy connection's segment: claim `from` now ends at `at`,
    /// and the new connection takes `at..<(its old end)`, which is `range`.
    case steal(from: UInt64, at: Int64, range: Range<Int64>)

    /// The bytes the new connection is to fetch.
    public var range: Range<Int64> {
        switch self {
        case .gap(let range): return range
        case .steal(_, _, let range): return range
        }
    }
}
