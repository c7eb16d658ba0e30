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
}
