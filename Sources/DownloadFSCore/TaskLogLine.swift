import Foundation

/// A line for a task's log, or the daemon log when `taskID` is nil.
public struct TaskLogLine: Sendable, Equatable {
    public var taskID: Int64?
    public var at: Date
    public var message: String

    public init(taskID: Int64?, at: Date, message: String) {
        self.taskID = taskID
        self.at = at
        self.message = message
    }

    /// The first line of every task's log, `added: URL` (password masked,
    /// R6), at the time the task was added. It follows from the task's row,
    /// so it is made when the log is read rather than stored: adding a
    /// million URLs writes a million rows, not two million.
    public static func added(_ task: DownloadTask) -> TaskLogLine {
        TaskLogLine(taskID: task.taskID, at: task.addedAt, message: addedPrefix + URLNormalizer.maskingPassword(task.url))
    }

    /// How the added line starts (catalogs written before it was derived
    /// hold it as a stored line).
    public static let addedPrefix = "added: "

    /// Whether a task's log shows the derived added line before its
    /// `storedCount` stored lines (the oldest first): not when the first
    /// stored one is it (a catalog from before it was derived), nor when the
    /// log is as long as a mount keeps (`kept`): its oldest lines were cut,
    /// and the added line, older than all, with them.
    public static func showsAdded(storedCount: Int, firstStored: String?, kept: Int) -> Bool {
        storedCount < kept && !(firstStored?.hasPrefix(addedPrefix) ?? false)
    }
}
