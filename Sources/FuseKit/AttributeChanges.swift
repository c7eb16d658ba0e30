/// What one `setattr` asks to change — chmod, chown, utimensat, truncate —
/// so the filesystem can decide what it allows (R6) instead of guessing from
/// the size alone.
public struct AttributeChanges: Sendable, Equatable {
    /// The new size (truncate, or `O_TRUNC` at open).
    public var size: Int64?
    /// chmod.
    public var mode: Bool
    /// chown (user or group).
    public var owner: Bool
    /// utimensat/utime, or a time the kernel asks to set with another change.
    public var times: Bool

    public init(size: Int64? = nil, mode: Bool = false, owner: Bool = false, times: Bool = false) {
        self.size = size
        self.mode = mode
        self.owner = owner
        self.times = times
    }

    /// True when nothing is asked: `chown(-1, -1)` reaches the filesystem like this.
    public var isEmpty: Bool { size == nil && !mode && !owner && !times }

    /// True when mode, owner or times are to change on their own.
    ///
    /// Times that come with a size change are the kernel stamping the
    /// truncation, not a request of the user's, so they do not count.
    public var changesMetadata: Bool { mode || owner || (times && size == nil) }
}
