import Foundation

/// One committed change of one task, as `MOUNT/events` shows it (R24):
/// `added`, a state the task entered, `removed`, `renamed` (name is the
/// new one) or `forgotten`.
public struct TaskChange: Sendable, Equatable {
    public var at: Date
    public var id: Int64
    public var event: String
    /// The file's own name, without its folder (R35), as `status` shows it.
    public var name: String

    public init(at: Date, id: Int64, event: String, name: String) {
        self.at = at
        self.id = id
        self.event = event
        self.name = name
    }
}
