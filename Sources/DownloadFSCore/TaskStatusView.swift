import Foundation

/// A snapshot of one task as the status renderers need it (R20, R21); no I/O.
///
/// The FUSE layer builds it from its in-memory view of a task, so a `status`
/// read never touches the catalog. The `display…` helpers hold the rules
/// shared by the per-task status file and the table, so both always agree.
public struct TaskStatusView: Sendable, Equatable {
    public var id: Int64
    /// The file's own name (R17), without its folder.
    public var name: String?
    /// Its folder under `files/` (R35); nil or "" at the top.
    public var folder: String?
    public var url: String
    public var state: TaskState
    public var downloaded: Int64
    /// Total size in bytes; nil when the server did not say.
    public var total: Int64?
    public var bytesPerSecond: Double
    /// Transfers the task has open now (R20): 0 when idle.
    public var connections: Int
    /// Attempts made so far (the one running counts).
    public var attempts: Int
    /// The last error, a human sentence.
    public var error: String?
    /// When a `retrying` task will try again.
    public var retryAt: Date?
    public var added: Date
    public var completed: Date?

    public init(id: Int64, name: String? = nil, folder: String? = nil, url: String, state: TaskState,
                downloaded: Int64 = 0, total: Int64? = nil, bytesPerSecond: Double = 0, connections: Int = 0,
                attempts: Int = 0, error: String? = nil, retryAt: Date? = nil,
                added: Date, completed: Date? = nil) {
        self.id = id
        self.name = name
        self.folder = folder
        self.url = url
        self.state = state
        self.downloaded = downloaded
        self.total = total
        self.bytesPerSecond = bytesPerSecond
        self.connections = connections
        self.attempts = attempts
        self.error = error
        self.retryAt = retryAt
        self.added = added
        self.completed = completed
    }

    /// The speed that counts: the measured one while downloading, else 0.
    public var effectiveBytesPerSecond: Double {
        state == .downloading && bytesPerSecond.isFinite && bytesPerSecond > 0 ? bytesPerSecond : 0
    }

    /// "42.1%", or "-" when the total is unknown.
    public var displayProgress: String {
        Units.progress(downloaded: downloaded, total: total)
    }

    /// "11.8 MiB/s"; "0 B/s" when not moving or not downloading.
    public var displaySpeed: String {
        Units.speed(effectiveBytesPerSecond)
    }

    /// "2m27s"; "-" unless downloading with a known total and a speed above 0.
    public var displayETA: String {
        let speed = effectiveBytesPerSecond
        guard let total, speed > 0 else { return "-" }
        return Units.duration(Double(max(0, total - downloaded)) / speed)
    }

    /// The error sentence; a retrying task adds "; retry N in 8s". "-" when there is none.
    public func displayError(now: Date) -> String {
        if state == .retrying, let retryAt {
            let wait = Units.duration(retryAt.timeIntervalSince(now))
            return "\(error ?? "transient error"); retry \(attempts + 1) in \(wait)"
        }
        guard let error, !error.isEmpty else { return "-" }
        return error
    }
}
