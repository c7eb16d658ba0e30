/// One connection of a segmented download (R18) and the part of the file it
/// is fetching: `[position, end)`. The bytes of its segment below `position`
/// are already written, and become `done` as the caller records them, so a
/// claim only ever speaks for what is still to come; that keeps claims and
/// `done` disjoint and lets the planner compare connections by what they
/// have left.
public struct SegmentClaim: Sendable, Equatable {
    /// The connection, as the engine numbers it.
    public var id: UInt64
    /// The next byte this connection writes.
    public var position: Int64
    /// Where this connection stops (exclusive); a steal moves it down.
    public var end: Int64

    public init(id: UInt64, position: Int64, end: Int64) {
        self.id = id
        self.position = position
        self.end = end
    }

    /// The bytes this connection has still to fetch (0 if it is finished).
    public var remaining: Int64 { max(0, end - position) }
}
