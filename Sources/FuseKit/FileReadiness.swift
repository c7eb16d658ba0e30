import CFuse

/// What poll(2), select(2) and epoll are told about an open file (the
/// answer to FUSE_POLL): ready to read, to write, both or neither.
public struct FileReadiness: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A read will not block (POLLIN | POLLRDNORM).
    public static let readable = FileReadiness(rawValue: UInt32(cfuse_poll_readable()))
    /// A write will not block (POLLOUT | POLLWRNORM).
    public static let writable = FileReadiness(rawValue: UInt32(cfuse_poll_writable()))
    /// What the kernel says of a file whose filesystem does not poll
    /// (DEFAULT_POLLMASK): every file but a stream answers this.
    public static let always: FileReadiness = [.readable, .writable]
}
