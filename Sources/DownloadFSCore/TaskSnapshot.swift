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

    /// Where task `id` stands in the waiting line (R30): how many queued or
    /// paused tasks come before it in `waitingLine()`, `move N`'s N that
    /// leaves it where it is. Nil
    /// for a task that has no place (only a queued or paused one has).
    /// A walk of every task: for the rare reader that asks (aria2's
    /// `changePosition`), never for a listing.
    public func place(of id: Int64) -> Int? {
        guard let task = tasks[id], task.state.standsInLine else { return nil }
        let own = WaitingLine.Entry(position: task.position, id: id)
        var before = 0
        tasks.forEach { other, candidate in
            if other != id, candidate.state.standsInLine,
               WaitingLine.Entry(position: candidate.position, id: other) < own {
                before += 1
            }
        }
        return before
    }

    /// The queued and paused tasks in the order they will start (R30): the
    /// waiting line's own order. A walk of every task and a sort of the
    /// waiting ones: for the rare reader that asks (aria2's `tellWaiting`,
    /// `WaitingLineAttribute`), never for a listing.
    public func waitingLine() -> [Int64] {
        var entries: [WaitingLine.Entry] = []
        tasks.forEach { id, task in
            if task.state.standsInLine {
                entries.append(WaitingLine.Entry(position: task.position, id: id))
            }
        }
        return entries.sorted(by: <).map(\.id)
    }

    /// The completed task whose file is called `name`.
    public func completed(named name: String) -> DownloadTask? {
        completedNames[name].flatMap { tasks[$0] }
    }
}
