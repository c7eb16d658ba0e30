import DownloadFSCore

/// One task as the mount shows it (`MountView.task`): its `status` text and,
/// when they were asked for, its other URLs in use and the byte ranges it holds.
public struct MountedTask: Sendable, Equatable {
    /// `queue/<id>/status` (R20), as the file gives it.
    public var status: String
    /// `user.downloadfs.mirrors`, one URL per element; empty for a task
    /// with none, or when not asked for.
    public var mirrors: [String]
    /// `user.downloadfs.ranges`; nil when not asked for or not shown.
    public var ranges: ByteRanges?

    public init(status: String, mirrors: [String] = [], ranges: ByteRanges? = nil) {
        self.status = status
        self.mirrors = mirrors
        self.ranges = ranges
    }
}
