import Foundation
import GRDB

/// One line of a task's log or the daemon log (task id nil).
public struct EventRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "event"
    public var id: Int64?
    public var taskID: Int64?
    public var at: Date
    public var message: String

    public init(taskID: Int64?, at: Date, message: String) {
        self.id = nil
        self.taskID = taskID
        self.at = at
        self.message = message
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
