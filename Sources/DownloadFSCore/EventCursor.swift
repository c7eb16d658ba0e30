/// Where one reader of `MOUNT/events` is in the stream (R24): the number of
/// the next line it reads, and what is left of a line a read too small for
/// it had to cut. Made by `EventBacklog.cursorAtEnd` when the file is
/// opened, moved only by `EventBacklog.read`.
public struct EventCursor: Sendable, Equatable {
    /// The number of the next whole line this reader gets (lines are
    /// numbered from 0 in the order they were published).
    public internal(set) var next: UInt64
    /// The rest of a line cut by a read smaller than it, with its newline:
    /// given before anything else.
    var rest: [UInt8] = []

    init(next: UInt64) { self.next = next }
}
