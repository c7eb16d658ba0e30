/// How a group of finished files is made durable (`FlushGroupPolicy.method`).
public enum FlushMethod: Sendable, Equatable {
    /// One `syncfs` for the whole filesystem, then a wait on each file's
    /// own writeback: the device's cache flushed once for the group.
    case wholeFilesystem
    /// An `fdatasync` per file, all at once: no other program's dirty data
    /// is written on the group's time.
    case eachFile
}
