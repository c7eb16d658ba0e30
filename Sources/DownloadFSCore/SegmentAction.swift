/// What the engine must do to its connections after a `SegmentedAttempt`
/// event (R18). Connections are numbered by the attempt, from 1, and a
/// number is never given to a second connection.
public enum SegmentAction: Sendable, Equatable {
    /// Start a connection `id` fetching `range` into its place in the data file.
    case open(id: UInt64, range: RequestedRange)
    /// The same for a waiting reader (R23): it opens even when its host has
    /// no free slot (`--max-connections-per-host` bounds background segments).
    case openForReader(id: UInt64, range: RequestedRange)
    /// Connection `id` must stop at `end` (exclusive) instead of where its
    /// request ends: another connection has taken the bytes from `end` on.
    case shrink(id: UInt64, end: Int64)
    /// Stop connection `id` now; the bytes it has already written stay written.
    case abort(id: UInt64)
}
