import Foundation

/// The whole task set and every rule that spans tasks; pure.
///
/// The daemon's loop hands it requests and reports (`handle`), each with the
/// time; it decides through the per-task `TaskMachine`, the `Scheduler` and
/// `FileName`, and writes what it decided into a `TaskSetTurn`: rows and log
/// lines to commit, then tasks to show, effects, replies, event lines (R24),
/// limits and splits for the engine. The loop only commits the turn and
/// carries it out — or, when the commit fails, gives it back to `undo`.
///
/// It owns: the tasks and their indexes (`TaskIndex`), the counters (ids,
/// positions, serials), max-active, the global limit and split and how a
/// limit is shared, the waiting line with `start`, `top` and `move`,
/// `pause-all`/`resume-all`, names and their de-duplication (R17),
/// `forget` (R34), and the replies held until a stop has settled.
public struct TaskSet: Sendable {
    /// The small state besides the tasks, saved whole before a turn so an
    /// undone turn puts it back.
    struct Books: Sendable {
        var nextID: Int64 = 1
        var nextPosition: Int64 = 1
        var nextSerial: UInt64 = 1
        /// The lowest position in use: `top` goes below it (R30).
        var lowestPosition: Int64 = 0
        var maxActive: Int
        var globalLimit: Int64
        /// `split` for tasks without their own (R18, R31).
        var globalSplit: Int?
        /// Replies held until a task's stop has settled, by task.
        var held: [Int64: [UInt64]] = [:]
        /// How many stops each held reply still waits for.
        var stopsLeft: [UInt64: Int] = [:]
        /// The limit the engine was last told for each running transfer.
        var appliedLimits: [Int64: Int64] = [:]
        /// Something the limits depend on changed (which tasks transfer,
        /// a task's or the global limit): most turns change neither.
        var limitsChanged = false
        var splitsChanged: Set<Int64> = []
        var shuttingDown = false
        /// `forget-completed` still to do, a turn's worth at a time, and the
        /// reply that waits for all of it.
        var forgetting: (ids: ArraySlice<Int64>, token: UInt64, count: Int)?
        var lastRetryCheck = -Double.infinity
        /// Back-off jitter.
        var random: SplitMix64
    }

    public private(set) var tasks = TaskIndex()
    public let machine: TaskMachine
    private var books: Books
    /// For each wanted name that was taken: the first ` (n)` that may be
    /// free, so a list that repeats a name a thousand times does not probe
    /// ` (1)`, ` (2)`, … from the start each time (R17).
    private var nameHints: [String: Int] = [:]
    /// The tasks `load` found downloading, as they stood: `finishLoading` puts them first.
    private var carriedOver: [WaitingLine.Entry] = []
    /// Whether a file of that name exists in STATE/files (a forgotten
    /// task's, R34): a fact about the disk the daemon answers.
    private let isFileNameOnDisk: @Sendable (String) -> Bool

    /// How often back-offs are checked (R53), in seconds.
    static let retryCheckInterval = 0.25

    public init(machine: TaskMachine, maxActive: Int, globalLimit: Int64, globalSplit: Int?,
                seed: UInt64, isFileNameOnDisk: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.machine = machine
        books = Books(maxActive: maxActive, globalLimit: globalLimit, globalSplit: globalSplit,
                      random: SplitMix64(seed: seed))
        self.isFileNameOnDisk = isFileNameOnDisk
    }

    public var maxActive: Int { books.maxActive }
    public var globalLimit: Int64 { books.globalLimit }
    /// What `MOUNT/ctl` has set, as reading a `ctl` shows it (R30, R31).
    public var settings: MountSettings {
        MountSettings(maxActive: books.maxActive, globalLimit: books.globalLimit, globalSplit: books.globalSplit)
    }

    /// How many connections `task` may use (R18): its own `split`, else the global one.
    public func split(of task: DownloadTask) -> SplitPolicy {
        SplitPolicy.choose(task: task.split, mount: books.globalSplit)
    }

    // MARK: - loading (R50)

    /// New tasks get ids above `highest` (the catalog's sequence: ids are never reused).
    public mutating func giveIDs(after highest: Int64) { books.nextID = max(books.nextID, highest + 1) }

    /// Room for `count` stored tasks, before `load`s.
    public mutating func reserveCapacity(_ count: Int) { tasks.reserveCapacity(count) }

    /// Takes in a stored task at mount, reconciled with what is on disk;
    /// returns the step (its task to save if it differs from the stored one).
    public mutating func load(_ stored: DownloadTask, disk: DataOnDisk, now: Date) -> TaskTransition {
        books.nextID = max(books.nextID, stored.taskID + 1)
        books.nextPosition = max(books.nextPosition, stored.position + 1)
        books.lowestPosition = min(books.lowestPosition, stored.position)
        let step = (try? machine.apply(.reconcile(disk), to: stored, now: now)) ?? TaskTransition(task: stored)
        tasks.put(step.task)
        if stored.state.isRunning, step.task.state == .queued {
            carriedOver.append(WaitingLine.Entry(position: stored.position, id: stored.taskID))
        }
        return step
    }

    /// After every `load`: the tasks that were downloading when the daemon
    /// stopped (unmounted or killed) go to the head of the waiting line, in
    /// the order they had, so they are the ones that carry on (R50) — not a
    /// task moved ahead of them (`top`, `move`) while they downloaded, or
    /// one that never ran ahead of a task the user `start`ed. Returns the
    /// tasks whose place changed, to save.
    public mutating func finishLoading() -> [DownloadTask] {
        defer { carriedOver = [] }
        var moved: [DownloadTask] = []
        for entry in carriedOver.sorted(by: <).reversed() {
            guard var task = tasks[entry.id] else { continue }
            task.position = Scheduler.topPosition(below: books.lowestPosition)
            books.lowestPosition = task.position
            tasks.put(task)
            moved.append(task)
        }
        return moved.reversed()
    }

    // MARK: - the entry point

    /// Handles one request at `now` (`monotonic`: seconds of a clock that
    /// never jumps), writing what it decided into `turn`.
    public mutating func handle(_ request: TaskSetRequest, now: Date, monotonic: Double, into turn: inout TaskSetTurn) {
        if turn.booksBefore == nil { turn.booksBefore = books }
        switch request {
        case .add(let entries, let token):
            add(entries, token: token, now: now, &turn)
        case .control(let id, let command, let token):
            control(id, command, token: token, now: now, monotonic: monotonic, &turn)
        case .controlGlobal(let command, let token):
            controlGlobal(command, token: token, now: now, &turn)
        case .remove(let id, let token):
            if tasks[id] != nil { apply(.remove, to: id, now: now, &turn) }
            turn.reply(token, .done)
        case .rename(let id, let name, let token):
            rename(id, to: name, token: token, now: now, &turn)
        case .renameFile(let name, let newName, let isFolder, let token):
            renameFile(name, to: newName, isFolder: isFolder, token: token, now: now, &turn)
        case .makeFolder(let path, let token):
            makeFolder(path, token: token, &turn)
        case .report(let id, let event):
            report(event, for: id, now: now, &turn)
        case .readerParked(let id):
            apply(.read(serial: takeSerial()), to: id, now: now, &turn)
        case .attemptEndedWithReaders(let id):
            guard !books.shuttingDown, let task = tasks[id], !task.transferring, task.reading == nil else { return }
            apply(.read(serial: takeSerial()), to: id, now: now, &turn)
        case .schedule:
            if monotonic - books.lastRetryCheck >= Self.retryCheckInterval {
                books.lastRetryCheck = monotonic
                retryDue(now: now, &turn)
            }
            if !books.shuttingDown { schedule(now: now, monotonic: monotonic, &turn) }
            forgetMore(now: now, &turn)
            shareLimits(&turn)
            sendSplits(&turn)
        case .shutdown:
            books.shuttingDown = true
        }
    }

    /// Puts back everything `turn` changed (its commit failed): as if its
    /// requests had never come.
    public mutating func undo(_ turn: TaskSetTurn) {
        for (id, old) in turn.originals {
            if let old { tasks.put(old) } else { tasks.remove(id) }
        }
        if let before = turn.booksBefore { books = before }
        for (key, old) in turn.hintsBefore { nameHints[key] = old }
    }

    /// Replies still held for stops (answered at unmount).
    public var heldTokens: [UInt64] { Array(books.stopsLeft.keys) + (books.forgetting.map { [$0.token] } ?? []) }

    // MARK: - reports

    private mutating func report(_ event: TaskEvent, for id: Int64, now: Date, _ turn: inout TaskSetTurn) {
        var event = event
        if case .responded(let serial, let response, let decision, nil) = event, let task = tasks[id],
           task.serial == serial, task.options.out == nil {
            // R17: the name the response suggests. One that names nothing and
            // was not redirected suggests the URL's name, which the task got
            // when it was added: kept. So does one from a mirror (R19).
            let name: String
            if response.contentDisposition == nil
                && (response.effectiveURL == task.url || task.mirrors.contains(response.effectiveURL)) {
                name = task.name
            } else {
                let wanted = FilesPath.join(task.folder, FileName.resolve(
                    out: nil, contentDisposition: response.contentDisposition, finalURL: response.effectiveURL))
                name = uniqueName(wanted, keeping: task.name, &turn)
            }
            event = .responded(serial: serial, response: response, decision: decision, name: name)
        }
        apply(event, to: id, now: now, &turn)
    }

    // MARK: - user requests

    private mutating func add(_ entries: [InputEntry], token: UInt64, now: Date, _ turn: inout TaskSetTurn) {
        var ids: [Int64] = []
        ids.reserveCapacity(entries.count)
        var added: [DownloadTask] = []
        for entry in entries {
            let parts = URLParts.split(entry.url)
            let key = URLNormalizer.normalize(entry.url, split: parts)
            // R13, R19: any URL of the line that a task has answers that task, the line's earliest first.
            let known = entry.mirrors.isEmpty ? tasks.id(forURL: key)
                : tasks.id(forAnyOf: [key] + entry.mirrors.map(URLNormalizer.normalize))
            if let known {
                ids.append(known)
                continue
            }
            var options = entry.options
            let wanted = FilesPath.join(options.folder ?? "",
                                        FileName.resolve(out: options.out, contentDisposition: nil, finalURL: parts))
            options.folder = nil
            if !entry.mirrors.isEmpty { options.mirrors = entry.mirrors }
            var task = DownloadTask(url: entry.url, normalizedURL: key, options: options,
                                    name: uniqueName(wanted, keeping: nil, &turn), addedAt: now,
                                    position: books.nextPosition)
            task.id = books.nextID
            books.nextID += 1
            books.nextPosition += 1
            tasks.put(task)
            turn.insert(task)
            let id = task.taskID
            // The task log's first line (`added: URL`) follows from the
            // row itself (`TaskLogLine.added`): not stored.
            if !entry.mirrors.isEmpty {
                turn.log.append(TaskLogLine(taskID: id, at: now, message: Self.mirrorsLine(entry.mirrors)))
            }
            if let cookies = options.cookies {
                turn.log.append(TaskLogLine(taskID: id, at: now, message: Self.cookiesLine(cookies.count)))
            }
            added.append(task)
            turn.changes.append(TaskChange(at: now, id: id, event: "added", name: task.fileName))
            turn.changes.append(TaskChange(at: now, id: id, event: task.state.rawValue, name: task.fileName))
            ids.append(id)
        }
        turn.log += Self.addedLines(added, at: now)
        turn.reply(token, .ids(ids))
    }

    /// Up to this many tasks added by one write get a daemon log line each.
    public static let addedLinesEach = 100

    /// The daemon log's lines for tasks one write added: one per task
    /// (`task 3 added: URL`), or, past `addedLinesEach`, one for them all
    /// naming the first and the last — a data set of a million URLs
    /// is not a million lines that push every other out of `MOUNT/log`
    /// (each task's own log still starts with its URL).
    static func addedLines(_ added: [DownloadTask], at now: Date) -> [TaskLogLine] {
        guard let first = added.first, let last = added.last else { return [] }
        let shown = { (task: DownloadTask) in URLNormalizer.maskingPassword(task.url) }
        guard added.count > addedLinesEach else {
            return added.map { TaskLogLine(taskID: nil, at: now, message: "task \($0.taskID) added: \(shown($0))") }
        }
        return [TaskLogLine(taskID: nil, at: now,
                            message: "\(added.count) tasks added by one write, \(first.taskID) to \(last.taskID): "
                                + "\(shown(first)) … \(shown(last))")]
    }

    /// The task log's line naming a new task's mirrors (R19), passwords masked (R6).
    public static func mirrorsLine(_ mirrors: [String]) -> String {
        let shown = mirrors.map(URLNormalizer.maskingPassword).joined(separator: " ")
        return "mirrors: \(mirrors.count) other URL\(mirrors.count == 1 ? "" : "s"): \(shown)"
    }

    /// The task log's word on `load-cookies=` (R10): how many cookies the
    /// task kept, so a file with none for its hosts does not go unnoticed.
    /// Never their names or values.
    public static func cookiesLine(_ count: Int) -> String {
        count == 0 ? "load-cookies: no unexpired cookie in the file is for this task's hosts; none will be sent"
            : "load-cookies: kept \(count) cookie\(count == 1 ? "" : "s") for this task's hosts, "
                + "sent with the requests they match"
    }

    private mutating func control(_ id: Int64, _ command: ControlCommand, token: UInt64, now: Date,
                                  monotonic: Double, _ turn: inout TaskSetTurn) {
        guard let task = tasks[id] else { return turn.reply(token, .refused("task \(id) does not exist")) }
        let event: TaskEvent
        switch command {
        case .pause: event = .pause(log: "paused")
        case .resume: event = .resume(log: "resumed")
        case .top: return move(task, to: 0, token: token, now: now, &turn)  // R30: `move 0` is `top`
        case .move(let place): return move(task, to: place, token: token, now: now, &turn)
        case .limit(let rate): event = .limit(bytesPerSecond: rate)
        case .split(let n): event = .split(n)
        case .forget: event = .forget
        case .start: return start(task, token: token, now: now, monotonic: monotonic, &turn)
        default: return turn.reply(token, .refused("that command belongs in the root ctl"))
        }
        do throws(TaskMachineError) {
            try tryApply(event, to: id, now: now, &turn)
        } catch {
            return turn.reply(token, .refused(error.message))
        }
        answer(token, once: [id], &turn)
    }

    /// A position before every other (`top`, R30).
    private mutating func topPosition() -> Int64 {
        books.lowestPosition = Scheduler.topPosition(below: books.lowestPosition)
        return books.lowestPosition
    }

    /// `move N` (R30): a queued or paused task goes to place N of the
    /// waiting line (the queued and paused tasks in start order, as
    /// `user.downloadfs.line` lists them, itself left out);
    /// 0 is the head, past the end is last. Positions are whole numbers, so
    /// when the two neighbours leave no room between them the tasks before
    /// the place step back one each, up to the first gap: at most N tasks.
    private mutating func move(_ task: DownloadTask, to place: Int, token: UInt64, now: Date,
                               _ turn: inout TaskSetTurn) {
        guard task.state.standsInLine else {
            return turn.reply(token, .refused(
                "cannot move a \(task.state.rawValue) task (only a queued or paused one has a place in the line)"))
        }
        let id = task.taskID
        let line = tasks.firstStanding(min(place, tasks.standingCount) + 2).filter { $0.id != id }
        let log = "moved to place \(place) of the waiting line"
        let position: Int64
        if place == 0 {
            position = topPosition()
        } else if place >= line.count {
            position = books.nextPosition
            books.nextPosition += 1
        } else {
            let before = Array(line.prefix(place))
            let after = line[place].position
            if before[place - 1].position < after - 1 {
                position = before[place - 1].position + (after - before[place - 1].position) / 2
            } else {
                position = after - 1
                var free = after - 1
                for other in before.reversed() where other.position >= free {
                    free -= 1
                    apply(.moved(position: free, log: nil), to: other.id, now: now, &turn)
                }
                books.lowestPosition = min(books.lowestPosition, free)
            }
        }
        apply(.moved(position: position, log: log), to: id, now: now, &turn)
        turn.reply(token, .done)
    }

    /// `start` (R30): now, even if every slot is busy.
    private mutating func start(_ task: DownloadTask, token: UInt64, now: Date, monotonic: Double,
                                _ turn: inout TaskSetTurn) {
        let id = task.taskID
        switch task.state {
        case .downloading, .verifying: return turn.reply(token, .done)
        case .completed: return turn.reply(token, .refused("task \(id) is already completed"))
        default: break
        }
        let others = tasks.inFlight.filter { $0.taskID != id }.map(Self.schedulable)
        let plan = Scheduler.startNow(id, in: others + [Self.schedulable(task)], maxActive: books.maxActive)
        for other in plan.demote where other != id {
            apply(.demote(log: "made room for task \(id) (start)"), to: other, now: now, &turn)
        }
        if task.state != .queued { apply(.requeue(log: "start requested"), to: id, now: now, &turn) }
        begin(id, now: now, monotonic: monotonic, &turn)
        turn.reply(token, .done)
    }

    private mutating func controlGlobal(_ command: ControlCommand, token: UInt64, now: Date, _ turn: inout TaskSetTurn) {
        var stopping: [Int64] = []
        func note(_ line: String) { turn.log.append(TaskLogLine(taskID: nil, at: now, message: line)) }
        switch command {
        case .maxActive(let n):
            books.maxActive = n
            note("max-active set to \(n)")
        case .globalLimit(let rate):
            books.globalLimit = rate
            books.limitsChanged = true
            note(rate > 0 ? "global speed limit \(Units.speed(Double(rate)))" : "global speed limit removed")
        case .globalSplit(let n):
            books.globalSplit = n
            books.splitsChanged.formUnion(tasks.running)
            note("split set to \(n) connections per task")
        case .pauseAll:
            // Every in-flight task but one whose data is whole (being
            // verified, synced or moved into files/).
            for task in tasks.inFlight where task.state != .verifying {
                if task.phase == .syncing || task.phase == .movingIn { continue }
                apply(.pause(log: "paused (pause-all)"), to: task.taskID, now: now, &turn)
                stopping.append(task.taskID)
            }
        case .resumeAll:
            var paused: [Int64] = []
            tasks.forEach { if $0.state == .paused { paused.append($0.taskID) } }
            for id in paused { apply(.resume(log: "resumed (resume-all)"), to: id, now: now, &turn) }
        case .forgetCompleted:
            guard books.forgetting == nil else {
                return turn.reply(token, .refused("forget-completed is already under way"))
            }
            var completed: [Int64] = []
            tasks.forEach { if $0.state == .completed { completed.append($0.taskID) } }
            books.forgetting = (completed[...], token, completed.count)
            return forgetMore(now: now, &turn)
        default:
            return turn.reply(token, .refused("that command belongs in a task's ctl"))
        }
        answer(token, once: stopping, &turn)
    }

    /// Tasks forgotten per turn: a million at once made one turn hold a
    /// copy of each, its change and its effect (3 GiB), and one transaction
    /// of a million deletes.
    static let forgetPerTurn = 2_000

    /// The next turn's worth of `forget-completed` (R34); its reply once all are done.
    private mutating func forgetMore(now: Date, _ turn: inout TaskSetTurn) {
        guard var work = books.forgetting else { return }
        for id in work.ids.prefix(Self.forgetPerTurn) where tasks[id]?.state == .completed {
            apply(.forget, to: id, now: now, &turn)
        }
        work.ids = work.ids.dropFirst(Self.forgetPerTurn)
        guard work.ids.isEmpty else {
            books.forgetting = work
            turn.moreToDo = true
            return
        }
        books.forgetting = nil
        turn.log.append(TaskLogLine(taskID: nil, at: now, message:
            "forget-completed: \(work.count) completed task\(work.count == 1 ? "" : "s") forgotten"))
        turn.reply(work.token, .done)
    }

    private mutating func rename(_ id: Int64, to name: String, token: UInt64, now: Date, _ turn: inout TaskSetTurn) {
        guard let task = tasks[id], task.state == .completed else { return turn.reply(token, .renameRefused(.missing)) }
        if name == task.name { return turn.reply(token, .done) }
        guard FilesPath.isValid(name) else { return turn.reply(token, .renameRefused(.badName)) }
        guard !isNameTaken(name) else { return turn.reply(token, .renameRefused(.exists)) }
        apply(.renamed(to: name), to: id, now: now, &turn)
        turn.renames.append((task.name, name))
        turn.reply(token, .done)
    }

    /// A plain file or a folder. A folder's tasks follow it (R35): a
    /// completed one's file is in it, an unfinished one's goes there; one
    /// whose file is being moved in right now makes the `mv` EBUSY.
    private mutating func renameFile(_ name: String, to newName: String, isFolder: Bool, token: UInt64, now: Date,
                                     _ turn: inout TaskSetTurn) {
        guard !tasks.isNameTaken(name) else { return turn.reply(token, .renameRefused(.missing)) }
        if newName == name { return turn.reply(token, .done) }
        guard FilesPath.isValid(newName) else { return turn.reply(token, .renameRefused(.badName)) }
        guard !isNameTaken(newName) else { return turn.reply(token, .renameRefused(.exists)) }
        // A folder into itself: rename(2) refuses it too, but no task may move first.
        guard !isFolder || !FilesPath.isInside(newName, folder: name) else {
            return turn.reply(token, .renameRefused(.badName))
        }
        var inside: [DownloadTask] = []
        if isFolder { tasks.forEach { if FilesPath.isInside($0.name, folder: name) { inside.append($0) } } }
        guard !inside.contains(where: \.isMovingIntoFiles) else { return turn.reply(token, .renameRefused(.busy)) }
        for task in inside {
            apply(.renamed(to: FilesPath.moved(task.name, from: name, to: newName)), to: task.taskID, now: now, &turn)
        }
        releaseName(name, &turn)
        turn.renames.append((name, newName))
        turn.reply(token, .done)
    }

    /// `mkdir` (R35): a valid name no task and no file has; its parent
    /// folder exists (the kernel looked it up).
    private mutating func makeFolder(_ path: String, token: UInt64, _ turn: inout TaskSetTurn) {
        guard FilesPath.isValid(path) else { return turn.reply(token, .renameRefused(.badName)) }
        guard !isNameTaken(path) else { return turn.reply(token, .renameRefused(.exists)) }
        turn.folders.append(path)
        turn.reply(token, .done)
    }

    /// Replies once committed, or once every task in `ids` has settled its stop.
    private mutating func answer(_ token: UInt64, once ids: [Int64], _ turn: inout TaskSetTurn) {
        let stopping = ids.filter { tasks[$0]?.stopping != nil }
        guard !stopping.isEmpty else { return turn.reply(token, .done) }
        books.stopsLeft[token] = stopping.count
        for id in stopping { books.held[id, default: []].append(token) }
    }

    /// Task `id`'s stop settled (or it is gone): replies waiting only on it are given.
    private mutating func settled(_ id: Int64, _ turn: inout TaskSetTurn) {
        guard let tokens = books.held.removeValue(forKey: id) else { return }
        for token in tokens {
            let left = (books.stopsLeft[token] ?? 1) - 1
            books.stopsLeft[token] = left > 0 ? left : nil
            if left <= 0 { turn.reply(token, .done) }
        }
    }

    // MARK: - scheduling (R16, R31, R53)

    static func schedulable(_ task: DownloadTask) -> SchedulableTask {
        SchedulableTask(task)
    }

    /// Fills free slots and trims excess ones.
    private mutating func schedule(now: Date, monotonic: Double, _ turn: inout TaskSetTurn) {
        // Every slot taken: nothing starts and nothing is over the limit
        // (`Scheduler.plan`'s answer), known without listing the running
        // tasks — most turns of many small downloads.
        guard tasks.running.count != books.maxActive else { return }
        let running = tasks.runningLine
        let free = books.maxActive - running.count
        let candidates = free > 0 ? tasks.firstInLine(free) : []
        let plan = Scheduler.plan(running + candidates, maxActive: books.maxActive)
        for id in plan.demote {
            apply(.demote(log: "sent back to the waiting line (max-active)"), to: id, now: now, &turn)
        }
        for id in plan.start { begin(id, now: now, monotonic: monotonic, &turn) }
    }

    private mutating func begin(_ id: Int64, now: Date, monotonic: Double, _ turn: inout TaskSetTurn) {
        if apply(.begin(serial: takeSerial(), at: monotonic), to: id, now: now, &turn) {
            // A new transfer starts without a limit: `shareLimits` sends one only if it has one.
            books.appliedLimits[id] = 0
        }
    }

    private mutating func retryDue(now: Date, _ turn: inout TaskSetTurn) {
        for id in tasks.retrying {
            if let at = tasks[id]?.retryAt, at <= now { apply(.backoffOver, to: id, now: now, &turn) }
        }
    }

    /// Splits the global limit among running transfers (R31) and applies
    /// per-task limits (R30): only what changed goes to the engine, after
    /// the turn's starts (the engine takes commands in order, so a new
    /// transfer has its limit before any byte arrives).
    private mutating func shareLimits(_ turn: inout TaskSetTurn) {
        guard books.limitsChanged else { return }
        books.limitsChanged = false
        let running = tasks.running.compactMap { tasks[$0] }.filter(\.transferring)
        for task in running {
            let limit = SpeedLimit.effective(task: task.speedLimit, global: books.globalLimit, running: running.count)
            if books.appliedLimits[task.taskID] != limit {
                books.appliedLimits[task.taskID] = limit
                turn.speedLimits.append((task.taskID, limit))
            }
        }
    }

    /// The split of running tasks whose split changed (R30, R31); a task
    /// started later gets it with its request.
    private mutating func sendSplits(_ turn: inout TaskSetTurn) {
        guard !books.splitsChanged.isEmpty else { return }
        for id in books.splitsChanged.sorted() {
            if let task = tasks[id], task.transferring { turn.splits.append((id, split(of: task))) }
        }
        books.splitsChanged.removeAll()
    }

    private mutating func takeSerial() -> UInt64 {
        defer { books.nextSerial += 1 }
        return books.nextSerial
    }

    // MARK: - one event, one task

    /// Applies one event to one task; an event the machine refuses is a bug
    /// somewhere: a daemon log line, never fatal.
    @discardableResult
    private mutating func apply(_ event: TaskEvent, to id: Int64, now: Date, _ turn: inout TaskSetTurn) -> Bool {
        do throws(TaskMachineError) {
            try tryApply(event, to: id, now: now, &turn)
            return true
        } catch {
            turn.log.append(TaskLogLine(taskID: nil, at: now, message: "task \(id): \(error.message)"))
            return false
        }
    }

    private mutating func tryApply(_ event: TaskEvent, to id: Int64, now: Date,
                                   _ turn: inout TaskSetTurn) throws(TaskMachineError) {
        guard let old = tasks[id] else { return }
        let step = try machine.apply(event, to: old, now: now, jitter: Double.random(in: 0..<1, using: &books.random))
        let new = step.task
        turn.remember(old)
        if step.removed || old.transferring != new.transferring || old.speedLimit != new.speedLimit {
            books.limitsChanged = true
        }
        if old.split != new.split { books.splitsChanged.insert(id) }
        if step.removed {
            tasks.remove(id)
            turn.delete(id)
            books.appliedLimits[id] = nil
            books.splitsChanged.remove(id)
            // A forgotten task's file keeps its name (R34).
            if event != .forget { releaseName(old.name, &turn) }
            turn.changes.append(TaskChange(at: now, id: id, event: event == .forget ? "forgotten" : "removed",
                                           name: old.fileName))
        } else {
            tasks.put(new)
            if new.differsInCatalog(from: old) { turn.update(id) }
            if old.name != new.name { releaseName(old.name, &turn) }
            if case .renamed = event { turn.changes.append(TaskChange(at: now, id: id, event: "renamed", name: new.fileName)) }
            if old.state != new.state {
                turn.changes.append(TaskChange(at: now, id: id, event: new.state.rawValue, name: new.fileName))
            }
        }
        turn.log += step.log.map { TaskLogLine(taskID: id, at: now, message: $0) }
        turn.log += step.daemonLog.map { TaskLogLine(taskID: nil, at: now, message: $0) }
        for effect in step.effects { turn.add(effect, of: new) }
        if step.removed || (old.stopping != nil && new.stopping == nil) { settled(id, &turn) }
    }

    // MARK: - names (R17)

    /// A name is taken by a task (in any state) or by a file in STATE/files.
    private func isNameTaken(_ name: String) -> Bool {
        tasks.isNameTaken(name) || isFileNameOnDisk(name)
    }

    /// `wanted` if free, else its first free ` (n)` form; `keeping` is the
    /// asking task's own name, free to it.
    private mutating func uniqueName(_ wanted: String, keeping own: String?, _ turn: inout TaskSetTurn) -> String {
        let (tasks, onDisk) = (tasks, isFileNameOnDisk)
        let taken = { (name: String) in name != own && (tasks.isNameTaken(name) || onDisk(name)) }
        guard taken(wanted) else { return wanted }
        // The task already holds a ` (n)` form of it (reserved when it was
        // added): kept, rather than a later number past its own.
        if let own, FileName.collisionBase(of: own)?.0 == wanted { return own }
        let first = nameHints[wanted] ?? 1
        let (name, n) = FileName.firstFree(wanted, from: first, isTaken: taken)
        setHint(wanted, n + 1, &turn)
        return name
    }

    /// A name no task holds any more: its ` (n)` may be given again.
    private mutating func releaseName(_ name: String, _ turn: inout TaskSetTurn) {
        guard let (wanted, n) = FileName.collisionBase(of: name), let hint = nameHints[wanted], hint > n else { return }
        setHint(wanted, n, &turn)
    }

    private mutating func setHint(_ wanted: String, _ n: Int, _ turn: inout TaskSetTurn) {
        if turn.hintsBefore[wanted] == nil { turn.hintsBefore[wanted] = .some(nameHints[wanted]) }
        nameHints[wanted] = n
    }
}
