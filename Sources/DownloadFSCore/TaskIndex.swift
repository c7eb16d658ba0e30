/// Every task by id, with the indexes lookups need so that none scans every
/// task: reserved names (R17, `files/`), the normalised URLs of tasks that are
/// not failed — every URL of a task with mirrors (R13, R19) —, and the tasks in each scheduling state (R16).
///
/// A plain value the daemon's loop owns; it changes only through `put` and
/// `remove`, so the indexes always agree with the tasks. FUSE threads read
/// its `snapshot`, which shares the tasks' storage (`ChunkedMap`): each task
/// is in memory once.
public struct TaskIndex: Sendable {
    private var store = ChunkedMap<Int64, DownloadTask>()
    private var names: [String: Int64] = [:]
    /// The completed tasks' names: what `files/` looks up (R40).
    private var completedNames = ChunkedMap<String, Int64>()
    /// Tasks moving their whole file into STATE/files, by name.
    private var movingIn: [String: Int64] = [:]
    /// Normalised URL → the oldest task not failed that has it.
    private var urls: [String: Int64] = [:]
    /// The others, rare: two tasks not failed share a URL when a failed one
    /// was added again and then the old one resumed. Kept apart so the
    /// common case costs no set per URL (100,000 tasks).
    private var sharedURLs: [String: Set<Int64>] = [:]
    /// Waiting for a slot.
    public private(set) var queued: Set<Int64> = []
    /// Holding a slot (`downloading`, `TaskState.holdsSlot`).
    public private(set) var running: Set<Int64> = []
    /// Waiting out a back-off.
    public private(set) var retrying: Set<Int64> = []
    /// What the scheduler needs of each queued or running task, kept small
    /// so a scheduling pass never copies whole tasks (100,000 queued).
    private var line: [Int64: SchedulableTask] = [:]
    /// The queued ones in start order: the next to start.
    private var waiting = WaitingLine()
    /// Paused tasks' positions: with the queued ones, they make the waiting line (R30).
    private var pausedPositions: [Int64: Int64] = [:]
    /// The queued and paused tasks in start order: the waiting line that
    /// `move N` counts in and `user.downloadfs.line` shows (R30). Apart from
    /// `waiting`, so a slot is never filled past a head of paused tasks.
    private var standing = WaitingLine()

    public init() {}

    /// What FUSE threads read: the tasks and the completed ones' names, sharing storage with this index.
    public var snapshot: TaskSnapshot { TaskSnapshot(tasks: store, completedNames: completedNames, movingIn: movingIn) }

    public subscript(id: Int64) -> DownloadTask? { store[id] }

    /// Room for `count` tasks in the indexes, before a mount loads them: a
    /// million puts otherwise rehash the name and URL tables some twenty times.
    public mutating func reserveCapacity(_ count: Int) {
        names.reserveCapacity(count)
        urls.reserveCapacity(count)
    }

    public var count: Int { store.count }

    /// Every task, lowest id first.
    public func forEach(_ body: (DownloadTask) throws -> Void) rethrows {
        try store.forEach { _, task in try body(task) }
    }

    /// Adds or replaces a task, keeping every index in step. Most puts
    /// change a count or a state, not the name or URL: only the indexes whose
    /// key changed are touched (every loop event puts twice, here and in the
    /// published copy).
    public mutating func put(_ task: DownloadTask) {
        let id = task.taskID
        guard let old = store.updateValue(task, forKey: id) else { return index(task) }
        if old.isMovingIntoFiles || task.isMovingIntoFiles {
            if old.isMovingIntoFiles { movingIn[old.name] = nil }
            if task.isMovingIntoFiles { movingIn[task.name] = id }
        }
        if old.name != task.name || old.normalizedURL != task.normalizedURL || (old.origin !== task.origin && old.options.mirrors != task.options.mirrors)
            || (old.state == .failed) != (task.state == .failed) {
            unindexNameAndURL(old)
            indexNameAndURL(task)
        } else if (old.state == .completed) != (task.state == .completed) {
            // Same name and URLs: only `files/`'s names change (every
            // completion), without hashing the name and URLs again.
            if task.state == .completed {
                completedNames.updateValue(id, forKey: task.name)
            } else if completedNames[old.name] == id {
                completedNames.removeValue(forKey: old.name)
            }
        }
        if (old.state != task.state || old.position != task.position || old.startedAt != task.startedAt
            || old.phase != task.phase) {
            unindexState(old)
            indexState(task, old: old)
        }
    }

    public mutating func remove(_ id: Int64) {
        guard let old = store.removeValue(forKey: id) else { return }
        if old.isMovingIntoFiles { movingIn[old.name] = nil }
        unindexNameAndURL(old)
        unindexState(old)
    }

    private mutating func index(_ task: DownloadTask) {
        indexNameAndURL(task)
        indexState(task, old: nil)
    }

    private mutating func indexNameAndURL(_ task: DownloadTask) {
        let id = task.taskID
        names[task.name] = id
        if task.state == .completed { completedNames.updateValue(id, forKey: task.name) }
        guard task.state != .failed else { return }
        // Most tasks have one URL: indexed without making an array of it.
        guard task.options.mirrors?.isEmpty == false else { return indexURL(task.normalizedURL, id) }
        for key in task.normalizedURLs { indexURL(key, id) }
    }

    private mutating func indexURL(_ key: String, _ id: Int64) {
        if let other = urls[key], other != id {
            sharedURLs[key, default: []].formUnion([other, id])
            urls[key] = min(other, id)
        } else {
            urls[key] = id
        }
    }

    private mutating func unindexNameAndURL(_ old: DownloadTask) {
        let id = old.taskID
        if names[old.name] == id { names[old.name] = nil }
        if old.state == .completed, completedNames[old.name] == id { completedNames.removeValue(forKey: old.name) }
        guard old.options.mirrors?.isEmpty == false else { return unindexURL(old.normalizedURL, id) }
        for key in old.normalizedURLs { unindexURL(key, id) }
    }

    private mutating func unindexURL(_ key: String, _ id: Int64) {
        if var shared = sharedURLs[key] {
            shared.remove(id)
            urls[key] = shared.min()
            sharedURLs[key] = shared.count > 1 ? shared : nil
        } else if urls[key] == id {
            urls[key] = nil
        }
    }

    /// `old`: the task as it was indexed before, nil for a new one. An
    /// entry a line already holds for the same place is not pushed again.
    private mutating func indexState(_ task: DownloadTask, old: DownloadTask?) {
        let id = task.taskID
        switch task.state {
        case .queued: queued.insert(id)
        case .paused: pausedPositions[id] = task.position
        case .retrying: retrying.insert(id)
        default: if task.state.holdsSlot { running.insert(id) }
        }
        if task.state == .queued || task.state.isRunning {
            line[id] = SchedulableTask(task)
        }
        let samePlace = old?.position == task.position
        if task.state == .queued && !(samePlace && old?.state == .queued) {
            waiting.push(.init(position: task.position, id: id))
            waiting.compact(liveCount: queued.count, isCurrent: isWaiting)
        }
        if task.state.standsInLine && !(samePlace && old?.state.standsInLine == true) {
            standing.push(.init(position: task.position, id: id))
            standing.compact(liveCount: standingCount, isCurrent: isStanding)
        }
    }

    private mutating func unindexState(_ old: DownloadTask) {
        let id = old.taskID
        queued.remove(id)
        running.remove(id)
        retrying.remove(id)
        pausedPositions[id] = nil
        line[id] = nil
    }

    /// The `count` queued tasks first in line (R16: by position, then id).
    public mutating func firstInLine(_ count: Int) -> [SchedulableTask] {
        guard count > 0 else { return [] }
        return waiting.first(count, isCurrent: isWaiting).compactMap { line[$0.id] }
    }

    /// The `count` queued or paused tasks first in the waiting line (R30:
    /// by position, then id), as `user.downloadfs.line` lists them.
    public mutating func firstStanding(_ count: Int) -> [WaitingLine.Entry] {
        guard count > 0 else { return [] }
        return standing.first(count, isCurrent: isStanding)
    }

    /// How many tasks the waiting line holds: the queued and paused ones.
    public var standingCount: Int { queued.count + pausedPositions.count }

    /// Entries the waiting line holds, stale ones included (for tests).
    var waitingEntries: Int { waiting.storedCount }

    private func isWaiting(_ entry: WaitingLine.Entry) -> Bool {
        queued.contains(entry.id) && line[entry.id]?.position == entry.position
    }

    private func isStanding(_ entry: WaitingLine.Entry) -> Bool {
        isWaiting(entry) || pausedPositions[entry.id] == entry.position
    }

    /// The running tasks as the scheduler sees them.
    public var runningLine: [SchedulableTask] { running.compactMap { line[$0] } }

    public func task(named name: String) -> DownloadTask? {
        names[name].flatMap { store[$0] }
    }

    public func isNameTaken(_ name: String) -> Bool { names[name] != nil }

    /// The task, in any state but failed, that has this normalised URL (R13);
    /// the oldest when several have it.
    public func id(forURL normalizedURL: String) -> Int64? { urls[normalizedURL] }

    /// The task that has the first of these normalised URLs that any task
    /// has (R13, R19): a line of mirrors matching several tasks answers
    /// the one its earliest URL belongs to.
    public func id(forAnyOf normalizedURLs: [String]) -> Int64? {
        for key in normalizedURLs {
            if let id = urls[key] { return id }
        }
        return nil
    }

    /// Queued, downloading and retrying tasks: what scheduling and limits
    /// look at (a verifying task has every byte and holds no slot).
    public var inFlight: [DownloadTask] {
        (queued.union(running).union(retrying)).compactMap { store[$0] }
    }

    /// Every id, lowest first.
    public var sortedIDs: [Int64] { store.keys }
}
