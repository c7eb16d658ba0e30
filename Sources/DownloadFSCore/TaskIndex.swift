/// Every task by id, with the indexes lookups need so that none scans every
/// task: reserved names (R17, `files/`), the normalised URLs of tasks that are
/// not failed (R13), and the tasks in each scheduling state (R16).
///
/// A plain value: the daemon's loop owns the true one, and the FUSE side's
/// `TaskTable` keeps a published copy under a lock; both change only through
/// `put` and `remove`, so the indexes always agree with the tasks.
public struct TaskIndex: Sendable {
    public private(set) var tasks: [Int64: DownloadTask] = [:]
    private var names: [String: Int64] = [:]
    /// Normalised URL → the oldest task not failed that has it.
    private var urls: [String: Int64] = [:]
    /// The others, rare: two tasks not failed share a URL when a failed one
    /// was added again and then the old one resumed. Kept apart so the
    /// common case costs no set per URL (100,000 tasks).
    private var sharedURLs: [String: Set<Int64>] = [:]
    /// Waiting for a slot.
    public private(set) var queued: Set<Int64> = []
    /// Holding a slot (`downloading` or `verifying`).
    public private(set) var running: Set<Int64> = []
    /// Waiting out a back-off.
    public private(set) var retrying: Set<Int64> = []
    /// What the scheduler needs of each queued or running task, kept small
    /// so a scheduling pass never copies whole tasks (100,000 queued).
    private var line: [Int64: SchedulableTask] = [:]

    public init() {}

    public subscript(id: Int64) -> DownloadTask? { tasks[id] }

    public var count: Int { tasks.count }

    /// Adds or replaces a task, keeping every index in step.
    public mutating func put(_ task: DownloadTask) {
        remove(task.taskID)
        let id = task.taskID
        tasks[id] = task
        names[task.name] = id
        if task.state != .failed {
            let key = task.normalizedURL
            if let other = urls[key], other != id {
                sharedURLs[key, default: []].formUnion([other, id])
                urls[key] = min(other, id)
            } else {
                urls[key] = id
            }
        }
        switch task.state {
        case .queued: queued.insert(id)
        case .downloading, .verifying: running.insert(id)
        case .retrying: retrying.insert(id)
        default: break
        }
        if task.state == .queued || task.state.isRunning {
            line[id] = SchedulableTask(id: id, state: task.state, position: task.position, startedAt: task.startedAt)
        }
    }

    public mutating func remove(_ id: Int64) {
        guard let old = tasks.removeValue(forKey: id) else { return }
        if names[old.name] == id { names[old.name] = nil }
        let key = old.normalizedURL
        if var shared = sharedURLs[key] {
            shared.remove(id)
            urls[key] = shared.min()
            sharedURLs[key] = shared.count > 1 ? shared : nil
        } else if urls[key] == id {
            urls[key] = nil
        }
        queued.remove(id)
        running.remove(id)
        retrying.remove(id)
        line[id] = nil
    }

    /// The queued tasks as the scheduler sees them.
    public var queuedLine: [SchedulableTask] { queued.compactMap { line[$0] } }

    /// The running tasks as the scheduler sees them.
    public var runningLine: [SchedulableTask] { running.compactMap { line[$0] } }

    public func task(named name: String) -> DownloadTask? {
        names[name].flatMap { tasks[$0] }
    }

    public func isNameTaken(_ name: String) -> Bool { names[name] != nil }

    /// The task, in any state but failed, that has this normalised URL (R13);
    /// the oldest when several have it.
    public func id(forURL normalizedURL: String) -> Int64? { urls[normalizedURL] }

    /// Queued, running and retrying tasks: what scheduling and limits look at.
    public var inFlight: [DownloadTask] {
        (queued.union(running).union(retrying)).compactMap { tasks[$0] }
    }

    /// Every id, lowest first.
    public var sortedIDs: [Int64] { tasks.keys.sorted() }
}
