/// The task set as FUSE threads see it: the tasks by id and the completed
/// ones by name (R40), published by the loop after each commit (R15).
/// Copying it costs two lists of chunk references; it shares every task
/// with the loop's `TaskIndex` until the loop changes one.
public struct TaskSnapshot: Sendable {
    public let tasks: ChunkedMap<Int64, DownloadTask>
    public let completedNames: ChunkedMap<String, Int64>
    /// Names of tasks whose whole file is being moved into STATE/files:
    /// there already, not yet in `files/` (R43). A few at most.
    public let movingIn: [String: Int64]

    public init(tasks: ChunkedMap<Int64, DownloadTask> = .init(), completedNames: ChunkedMap<String, Int64> = .init(),
                movingIn: [String: Int64] = [:]) {
        self.tasks = tasks
        self.completedNames = completedNames
        self.movingIn = movingIn
    }

    public subscript(id: Int64) -> DownloadTask? { tasks[id] }

    /// The completed task whose file is called `name`.
    public func completed(named name: String) -> DownloadTask? {
        completedNames[name].flatMap { tasks[$0] }
    }
}
