import CLinux
import Catalog
import DownloadFSCore
import Engine
import Foundation
import Glibc
import Synchronization

/// The daemon's one owner of tasks: a serial loop on its own thread.
///
/// FUSE threads, the engine and the workers only send it messages (`send`);
/// each turn it takes every message that came, applies each through the pure
/// `TaskMachine`, asks the `Scheduler` who runs, commits everything the turn
/// changed to the catalog in one transaction (group commit), and only then
/// shows the changes (`TaskTable`), carries out their effects (engine
/// commands, deletions, waking `wait` readers, the hook) and answers the
/// writers waiting for their `ctl` or `queue/new` write (R15). Nothing
/// outside the loop changes a task, so nothing needs a lock across I/O.
///
/// A thread rather than an actor: a turn blocks on SQLite's commit, which
/// must not hold one of the cooperative pool's two threads, and a thread's
/// condition wakes within microseconds.
final class TaskLoop: EngineDelegate, @unchecked Sendable {
    let state: StateDirectory
    let catalog: Catalog
    let table = TaskTable()
    let log: EventLog
    let waits = WaitRegistry()
    /// Called on the loop thread with a task as FUSE threads saw it before
    /// and after each change they are shown (nil: not there); the
    /// filesystem tells the kernel what that made stale (R7). Set once,
    /// before the loop starts; it must not block (it only queues).
    var onChange: (@Sendable (_ old: DownloadTask?, _ new: DownloadTask?) -> Void)?
    private var engine: Engine!
    private let hooks: CompletionHook?
    private let workers: TaskWorkers

    private let inbox = Inbox<LoopMessage>()
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    // MARK: loop thread only

    private var tasks = TaskIndex()
    private var lives: [Int64: LiveProgress] = [:]
    private var machine: TaskMachine
    private var maxActive: Int
    private var globalLimit: Int64
    /// `split` for tasks without their own (R18, R31).
    private var globalSplit: Int?
    /// Tasks whose split changed this turn, for the engine (`applySplits`).
    private var splitsChanged: Set<Int64> = []
    private var nextID: Int64 = 1
    private var nextPosition: Int64 = 1
    private var nextSerial: UInt64 = 1
    private var appliedLimits: [Int64: Int64] = [:]
    /// Set when a turn changed what the limits depend on (which tasks
    /// transfer, a task's or the global limit): most turns change neither.
    private var limitsChanged = false
    /// Replies held until a task's stop has settled (`pause` answers once
    /// the task is `paused` with its final count).
    private var heldReplies: [Int64: [@Sendable () -> Void]] = [:]
    private var shuttingDown = false
    private var lastTick = 0.0
    /// Back-off jitter: seeded once, not a getrandom call per event.
    private var random = SplitMix64(seed: UInt64.random(in: .min ... .max))
    /// Tasks changed by reports whose batch could not be committed: saved
    /// with the next batch.
    private var unsaved: Set<Int64> = []
    /// The lowest position in the waiting line: `top` goes below it (R30).
    private var lowestPosition: Int64 = 0

    init(state: StateDirectory, catalog: Catalog, log: EventLog, configuration: DaemonConfiguration) {
        self.state = state
        self.catalog = catalog
        self.log = log
        maxActive = configuration.maxActive
        globalLimit = configuration.speedLimit
        globalSplit = configuration.split
        machine = TaskMachine(retry: RetryPolicy(maxTries: configuration.maxTries))
        hooks = configuration.onComplete.map { CompletionHook(command: $0, log: log) }
        workers = TaskWorkers(state: state)
    }

    // MARK: - startup and shutdown

    /// Loads the catalog and reconciles it with the data on disk (R50, R51),
    /// before the mount is up; the loop is not running yet.
    func load() throws(DaemonError) {
        for note in state.secure() { log.daemon(note, level: .warning) }
        var batch = CatalogBatch()
        let now = Date()
        do {
            nextID = try catalog.highestTaskID() + 1
            // Row by row: 100,000 tasks never sit in memory twice.
            try catalog.forEachTask { [self] task in
                nextPosition = max(nextPosition, task.position + 1)
                lowestPosition = min(lowestPosition, task.position)
                let step = (try? machine.apply(.reconcile(dataOnDisk(task)), to: task, now: now)) ?? TaskTransition(task: task)
                tasks.put(step.task)
                if step.task.differsInCatalog(from: task) { batch.updates.append(step.task) }
                batch.events += step.log.map { EventRecord(taskID: task.taskID, at: now, message: $0) }
            }
            try catalog.commit(batch)
        } catch { throw DaemonError(error.message) }
        do { try catalog.trimLogs() } catch { log.daemon(error.message, level: .warning) }
        table.publishAll(tasks)
        keepOrphanedPartials()
        // Loading decoded every row: give the garbage back before serving.
        clinux_malloc_trim()
    }

    /// What is on disk for a stored task (R50, R51); only what reconciling it needs.
    private func dataOnDisk(_ task: DownloadTask) -> DataOnDisk {
        let partial = task.state == .completed ? nil : fileSize(state.partial(task.taskID))
        let needsFinished = task.state == .completed || (partial == nil && task.downloaded > 0 && task.state.isRunning)
        return DataOnDisk(partialSize: partial, finishedSize: needsFinished ? fileSize(state.file(task.name)) : nil)
    }

    private func fileSize(_ path: String) -> Int64? {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : nil
    }

    /// Partial data with no unfinished task behind it (the catalog was lost
    /// or replaced) is moved to `STATE/orphaned/`, never deleted: losing the
    /// catalog is the user's doing, deleting their data would be ours.
    private func keepOrphanedPartials() {
        let partials = (try? FileManager.default.contentsOfDirectory(atPath: state.partialDir)) ?? []
        for name in partials {
            if let task = tasks[Int64(name) ?? -1], task.state != .completed { continue }
            mkdir(state.orphanedDir, 0o700)
            var target = state.orphanedDir + "/" + name
            var n = 1
            while access(target, F_OK) == 0 {
                target = state.orphanedDir + "/\(name).\(n)"
                n += 1
            }
            if Glibc.rename(state.partialDir + "/" + name, target) == 0 {
                log.daemon("partial data \(name) belongs to no task in the catalog; kept it as \(target) "
                    + "(delete it when you do not need it)", level: .warning)
            } else {
                log.daemon("partial data \(name) belongs to no task in the catalog and could not be moved to "
                    + "\(target): \(String(cString: strerror(errno)))", level: .warning)
            }
        }
    }

    func attach(_ engine: Engine) { self.engine = engine }

    /// Starts the loop thread; called once the mount is up and the engine runs.
    func begin() {
        log.deliver { [self] in wakeUp.signal() }
        let thread = Thread { [self] in
            clinux_name_thread("downloadfs-loop")
            run()
            finished.signal()
        }
        thread.start()
        wakeUp.signal()
    }

    /// Stops every transfer, flushed and committed, then the loop (R3).
    func shutdown() {
        let reply = LoopReply<Void, Never>()
        send(.shutdown(reply))
        reply.wait()
        finished.wait()
    }

    // MARK: - requests from FUSE threads (block until committed)

    /// Adds tasks (R10, R13); one id per entry, the existing task's for a URL already known.
    func add(_ entries: [InputEntry]) throws(CatalogError) -> [Int64] {
        guard !entries.isEmpty else { return [] }
        let reply = LoopReply<[Int64], CatalogError>()
        send(.add(entries, reply))
        return try reply.wait()
    }

    /// A command written to `queue/<id>/ctl` (R30).
    func control(_ id: Int64, _ command: ControlCommand) throws(ControlCommandError) {
        let reply = LoopReply<Void, ControlCommandError>()
        send(.control(id, command, reply))
        try reply.wait()
    }

    /// A command written to the root `ctl` (R31).
    func controlGlobal(_ command: ControlCommand) throws(ControlCommandError) {
        let reply = LoopReply<Void, ControlCommandError>()
        send(.controlGlobal(command, reply))
        try reply.wait()
    }

    /// Cancels and forgets a task (R32).
    func remove(_ id: Int64) throws(CatalogError) {
        let reply = LoopReply<Void, CatalogError>()
        send(.remove(id, reply))
        try reply.wait()
    }

    /// `mv` inside files/ (R40).
    func rename(_ id: Int64, to newName: String) throws(RenameError) {
        let reply = LoopReply<Void, RenameError>()
        send(.rename(id, newName, reply))
        try reply.wait()
    }

    /// A reader waits for `range` of task `id` (R23): `reader` is told when
    /// the bytes are written (or will not come), `parked` gets the token an
    /// interrupted reader cancels with; the task fetches the range first.
    /// A nil range waits for the task to tell its readers (completed, failed).
    func awaitBytes(_ id: Int64, _ range: Range<Int64>?, reader: @escaping LiveProgress.Reader,
                    parked: @escaping @Sendable (LiveProgress, UInt64) -> Void) {
        send(.read(id, range, reader, parked))
    }

    func send(_ message: LoopMessage) {
        if inbox.put(message) { wakeUp.signal() }
    }

    // MARK: - engine reports (engine thread, checkpointer): hand off only

    func transferStarted(_ id: Int64, serial: UInt64, response: ResponseSummary, decision: ResumeDecision) {
        send(.event(id, .responded(serial: serial, response: response, decision: decision, name: nil)))
    }

    func transferCheckpointed(_ id: Int64, serial: UInt64, ranges: ByteRanges) {
        send(.event(id, .checkpointed(serial: serial, ranges: ranges)))
    }

    func transferFinished(_ id: Int64, serial: UInt64, outcome: TransferOutcome) {
        send(.event(id, .finished(serial: serial, outcome: outcome)))
    }

    func transferDroppedMirror(_ id: Int64, serial: UInt64, url: String, reason: String) {
        send(.event(id, .mirrorDropped(serial: serial, url: url, reason: reason)))
    }

    func transferNoted(_ id: Int64, serial: UInt64, line: String) {
        send(.event(id, .noted(serial: serial, line: line)))
    }

    // MARK: - the loop

    private func run() {
        while true {
            _ = wakeUp.wait(timeout: .now() + 0.25)
            if turn(inbox.takeAll()) { return }
        }
    }

    /// One turn; true when the loop is to end (after a shutdown).
    private func turn(_ messages: [LoopMessage]) -> Bool {
        var commands = LoopBatch()
        var reports = LoopBatch()
        var shutdownReply: LoopReply<Void, Never>?
        for message in messages {
            switch message {
            case .event(let id, let event):
                report(event, for: id, &reports)
            case .add(let entries, let reply):
                add(entries, reply, &commands)
            case .control(let id, let command, let reply):
                control(id, command, reply, &commands)
            case .controlGlobal(let command, let reply):
                controlGlobal(command, reply, &commands)
            case .remove(let id, let reply):
                if tasks[id] == nil { reply.answer(.success(())); continue }
                apply(.remove, to: id, &commands)
                commands.onCommit { reply.answer(.success(())) } failed: { reply.answer(.failure($0)) }
            case .rename(let id, let name, let reply):
                rename(id, to: name, reply, &commands)
            case .read(let id, let range, let reader, let parked):
                read(id, range, reader, parked, &reports)
            case .shutdown(let reply):
                shutdownReply = reply
            }
        }
        // User requests first, in their own transaction: when it fails they
        // are answered with the error and undone, as if never written.
        commit(&commands, undoOnFailure: true)
        let now = MonotonicClock.now()
        if now - lastTick >= 0.25 {
            lastTick = now
            retryDue(&reports)
        }
        if !shuttingDown { schedule(&reports) }
        reports.shownEvents += log.takePending()
        commit(&reports, undoOnFailure: false)
        applyLimits()
        applySplits()
        if let shutdownReply {
            stopEverything()
            shutdownReply.answer(.success(()))
            return true
        }
        return false
    }

    /// A report about a transfer, a check or a move: applied; a report the
    /// machine refuses is a bug somewhere, logged, never fatal.
    private func report(_ event: TaskEvent, for id: Int64, _ batch: inout LoopBatch) {
        var event = event
        if case .responded(let serial, let response, let decision, nil) = event, let task = tasks[id],
           task.serial == serial, task.options.out == nil {
            // R17: the name the response suggests, made unique here, where names are known.
            // A response that names nothing and was not redirected suggests
            // the URL's name, which the task got when it was added: kept. So
            // does one from a mirror (R19): the name is the first URL's.
            if response.contentDisposition == nil
                && (response.effectiveURL == task.url || task.mirrors.contains(response.effectiveURL)) {
                apply(.responded(serial: serial, response: response, decision: decision, name: task.name),
                      to: id, &batch)
                return
            }
            let desired = FileName.resolve(out: nil, contentDisposition: response.contentDisposition,
                                           finalURL: response.effectiveURL)
            let name = FileName.unique(desired) { $0 != task.name && self.isNameTaken($0) }
            event = .responded(serial: serial, response: response, decision: decision, name: name)
        }
        apply(event, to: id, &batch)
        if case .finished = event { fetchForWaitingReaders(id, &batch) }
    }

    /// Parks a reader in its task's live progress (made if the task has
    /// none yet) and has the task fetch what it waits for (R23).
    private func read(_ id: Int64, _ range: Range<Int64>?, _ reader: @escaping LiveProgress.Reader,
                      _ parked: @Sendable (LiveProgress, UInt64) -> Void, _ batch: inout LoopBatch) {
        guard let task = tasks[id] else { return reader(.failed) }
        let live = lives[id] ?? LiveProgress(task.ranges)
        if lives[id] == nil {
            lives[id] = live
            table.publish(task, live: live)
        }
        let token = live.wait(for: range, reader)
        guard token != 0 else { return }
        parked(live, token)
        apply(.read(serial: takeSerial()), to: id, &batch)
    }

    /// After an attempt ended: readers still waiting get a reading attempt
    /// (a task paused or sent back to the line), or EIO (failed).
    private func fetchForWaitingReaders(_ id: Int64, _ batch: inout LoopBatch) {
        guard !shuttingDown, let task = tasks[id], !task.transferring, task.reading == nil,
              let live = lives[id], live.readersWaiting.load(ordering: .relaxed) > 0 else { return }
        apply(.read(serial: takeSerial()), to: id, &batch)
    }

    private func takeSerial() -> UInt64 {
        defer { nextSerial += 1 }
        return nextSerial
    }

    /// Applies one event to one task: the machine decides, the batch records.
    @discardableResult
    private func apply(_ event: TaskEvent, to id: Int64, _ batch: inout LoopBatch) -> Bool {
        do throws(TaskMachineError) {
            try tryApply(event, to: id, &batch)
            return true
        } catch {
            log.daemon("task \(id): \(error.message)", level: .error)
            return false
        }
    }

    private func tryApply(_ event: TaskEvent, to id: Int64, _ batch: inout LoopBatch) throws(TaskMachineError) {
        guard let old = tasks[id] else { return }
        let step = try machine.apply(event, to: old, now: Date(), jitter: Double.random(in: 0..<1, using: &random))
        batch.remember(old)
        if step.removed || old.transferring != step.task.transferring || old.speedLimit != step.task.speedLimit {
            limitsChanged = true
        }
        if old.split != step.task.split { splitsChanged.insert(id) }
        if step.removed {
            tasks.remove(id)
            batch.delete(id)
        } else {
            tasks.put(step.task)
            if step.task.differsInCatalog(from: old) { batch.update(step.task) }
        }
        let at = Date()
        batch.events += step.log.map { EventRecord(taskID: id, at: at, message: $0) }
        batch.events += step.daemonLog.map { EventRecord(taskID: nil, at: at, message: $0) }
        for effect in step.effects { batch.effects.append((id, effect, step.task)) }
        if old.stopping != nil && step.task.stopping == nil, let held = heldReplies.removeValue(forKey: id) {
            for answer in held { batch.onCommit(answer) }
        }
        if step.removed, let held = heldReplies.removeValue(forKey: id) {
            for answer in held { batch.onCommit(answer) }
        }
    }

    private func isNameTaken(_ name: String) -> Bool {
        tasks.isNameTaken(name) || access(state.file(name), F_OK) == 0
    }

    // MARK: - user requests

    private func add(_ entries: [InputEntry], _ reply: LoopReply<[Int64], CatalogError>, _ batch: inout LoopBatch) {
        var ids: [Int64] = []
        let now = Date()
        for entry in entries {
            let key = URLNormalizer.normalize(entry.url)
            // R13, R19: any URL of the line that a task has answers that task, the line's earliest first.
            let known = entry.mirrors.isEmpty ? tasks.id(forURL: key)
                : tasks.id(forAnyOf: [key] + entry.mirrors.map(URLNormalizer.normalize))
            if let id = known {
                ids.append(id)
                continue
            }
            let desired = FileName.resolve(out: entry.options.out, contentDisposition: nil, finalURL: entry.url)
            let name = FileName.unique(desired) { self.isNameTaken($0) }
            var options = entry.options
            if !entry.mirrors.isEmpty { options.mirrors = entry.mirrors }
            var task = DownloadTask(url: entry.url, normalizedURL: key, options: options, name: name,
                                    addedAt: now, position: nextPosition)
            task.id = nextID
            nextID += 1
            nextPosition += 1
            tasks.put(task)
            batch.insert(task)
            let shown = URLNormalizer.maskingPassword(task.url)
            batch.events.append(EventRecord(taskID: task.taskID, at: now, message: "added: \(shown)"))
            if !entry.mirrors.isEmpty {
                batch.events.append(EventRecord(taskID: task.taskID, at: now, message: Self.mirrorsLine(entry.mirrors)))
            }
            batch.events.append(EventRecord(taskID: nil, at: now, message: "task \(task.taskID) added: \(shown)"))
            ids.append(task.taskID)
        }
        batch.onCommit { reply.answer(.success(ids)) } failed: { reply.answer(.failure($0)) }
    }

    /// The task log's line naming a new task's mirrors (R19), passwords masked (R6).
    static func mirrorsLine(_ mirrors: [String]) -> String {
        let shown = mirrors.map(URLNormalizer.maskingPassword).joined(separator: " ")
        return "mirrors: \(mirrors.count) other URL\(mirrors.count == 1 ? "" : "s"): \(shown)"
    }

    private func control(_ id: Int64, _ command: ControlCommand, _ reply: LoopReply<Void, ControlCommandError>,
                         _ batch: inout LoopBatch) {
        guard tasks[id] != nil else { return reply.answer(.failure(ControlCommandError("task \(id) does not exist"))) }
        let event: TaskEvent
        switch command {
        case .pause: event = .pause(log: "paused")
        case .resume: event = .resume(log: "resumed")
        case .top:
            lowestPosition = Scheduler.topPosition(below: lowestPosition)
            event = .top(position: lowestPosition)
        case .limit(let rate): event = .limit(bytesPerSecond: rate)
        case .split(let n): event = .split(n)
        case .start: return start(id, reply, &batch)
        default: return reply.answer(.failure(ControlCommandError("that command belongs in the root ctl")))
        }
        do throws(TaskMachineError) {
            try tryApply(event, to: id, &batch)
        } catch {
            return reply.answer(.failure(ControlCommandError(error.message)))
        }
        answer(reply, for: [id], &batch)
    }

    /// Answers once committed, or once every task in `ids` has settled its stop.
    private func answer(_ reply: LoopReply<Void, ControlCommandError>, for ids: [Int64], _ batch: inout LoopBatch) {
        let stopping = ids.filter { tasks[$0]?.stopping != nil }
        let failed: @Sendable (CatalogError) -> Void = { reply.answer(.failure(ControlCommandError($0.message))) }
        guard !stopping.isEmpty else {
            return batch.onCommit({ reply.answer(.success(())) }, failed: failed)
        }
        // Held until each stop has settled; registered once committed, so an
        // undone batch leaves nothing held.
        let countdown = Countdown(stopping.count) { reply.answer(.success(())) }
        batch.onCommit({ [self] in
            for id in stopping { heldReplies[id, default: []].append { countdown.tick() } }
        }, failed: failed)
    }

    /// `start` (R30): now, even if every slot is busy.
    private func start(_ id: Int64, _ reply: LoopReply<Void, ControlCommandError>, _ batch: inout LoopBatch) {
        guard let task = tasks[id] else { return }
        switch task.state {
        case .downloading, .verifying: return batch.onCommit({ reply.answer(.success(())) }, failed: { _ in })
        case .completed: return reply.answer(.failure(ControlCommandError("task \(id) is already completed")))
        default: break
        }
        let others = tasks.inFlight.filter { $0.taskID != id }.map(schedulable)
        let plan = Scheduler.startNow(id, in: others + [schedulable(task)], maxActive: maxActive)
        for other in plan.demote where other != id {
            apply(.demote(log: "made room for task \(id) (start)"), to: other, &batch)
        }
        if task.state != .queued { apply(.requeue(log: "start requested"), to: id, &batch) }
        beginTransfer(id, &batch)
        answer(reply, for: [], &batch)
    }

    private func controlGlobal(_ command: ControlCommand, _ reply: LoopReply<Void, ControlCommandError>,
                               _ batch: inout LoopBatch) {
        var stopping: [Int64] = []
        switch command {
        case .maxActive(let n):
            maxActive = n
            batch.events.append(EventRecord(taskID: nil, at: Date(), message: "max-active set to \(n)"))
        case .globalLimit(let rate):
            globalLimit = rate
            limitsChanged = true
            let line = rate > 0 ? "global speed limit \(Units.speed(Double(rate)))" : "global speed limit removed"
            batch.events.append(EventRecord(taskID: nil, at: Date(), message: line))
        case .globalSplit(let n):
            globalSplit = n
            splitsChanged.formUnion(tasks.running)
            batch.events.append(EventRecord(taskID: nil, at: Date(), message: "split set to \(n) connections per task"))
        case .pauseAll:
            // Every in-flight task but one being verified (its data is whole).
            for task in tasks.inFlight where task.state != .verifying {
                if task.state == .downloading && !task.transferring { continue }
                apply(.pause(log: "paused (pause-all)"), to: task.taskID, &batch)
                stopping.append(task.taskID)
            }
        case .resumeAll:
            for task in tasks.tasks.values where task.state == .paused {
                apply(.resume(log: "resumed (resume-all)"), to: task.taskID, &batch)
            }
        default:
            return reply.answer(.failure(ControlCommandError("that command belongs in a task's ctl")))
        }
        answer(reply, for: stopping, &batch)
    }

    private func rename(_ id: Int64, to newName: String, _ reply: LoopReply<Void, RenameError>, _ batch: inout LoopBatch) {
        guard let task = tasks[id], task.state == .completed else { return reply.answer(.failure(.missing)) }
        if newName == task.name { return reply.answer(.success(())) }
        guard FileName.sanitize(newName) == newName else { return reply.answer(.failure(.badName)) }
        guard !isNameTaken(newName) else { return reply.answer(.failure(.exists)) }
        let (from, to) = (state.file(task.name), state.file(newName))
        guard Glibc.rename(from, to) == 0 else { return reply.answer(.failure(.io(errno))) }
        apply(.renamed(to: newName), to: id, &batch)
        batch.onCommit { reply.answer(.success(())) } failed: { _ in
            _ = Glibc.rename(to, from)
            reply.answer(.failure(.io(EIO)))
        }
    }

    // MARK: - scheduling (R16, R31, R53)

    private func schedulable(_ task: DownloadTask) -> SchedulableTask {
        SchedulableTask(id: task.taskID, state: task.state, position: task.position, startedAt: task.startedAt)
    }

    /// Fills free slots and trims excess ones.
    private func schedule(_ batch: inout LoopBatch) {
        let running = tasks.runningLine
        let free = maxActive - running.count
        let candidates = free > 0 ? tasks.firstInLine(free) : []
        let plan = Scheduler.plan(running + candidates, maxActive: maxActive)
        for id in plan.demote { apply(.demote(log: "sent back to the waiting line (max-active)"), to: id, &batch) }
        for id in plan.start { beginTransfer(id, &batch) }
    }

    private func beginTransfer(_ id: Int64, _ batch: inout LoopBatch) {
        let serial = takeSerial()
        if apply(.begin(serial: serial, at: MonotonicClock.now()), to: id, &batch) {
            // A new transfer starts without a limit: `applyLimits` sends one only if it has one.
            appliedLimits[id] = 0
        }
    }

    /// Re-queues retrying tasks whose back-off is over.
    private func retryDue(_ batch: inout LoopBatch) {
        let now = Date()
        for id in tasks.retrying {
            if let at = tasks[id]?.retryAt, at <= now { apply(.backoffOver, to: id, &batch) }
        }
    }

    /// Splits the global limit among running transfers (R31) and applies
    /// per-task limits (R30), sending only what changed. Runs after the
    /// turn's starts were sent, so a new transfer gets its limit before any
    /// byte arrives (the engine handles commands in order).
    private func applyLimits() {
        guard let engine, limitsChanged else { return }
        limitsChanged = false
        let running = tasks.running.compactMap { tasks[$0] }.filter { $0.transferring }
        for task in running {
            let limit = SpeedLimit.effective(task: task.speedLimit, global: globalLimit, running: running.count)
            if appliedLimits[task.taskID] != limit {
                appliedLimits[task.taskID] = limit
                engine.setSpeedLimit(task.taskID, bytesPerSecond: limit)
            }
        }
    }

    // MARK: - commit, show, carry out

    /// Commits the batch; then shows its tasks, carries out its effects and
    /// answers its writers. On failure a batch of user requests is undone and
    /// answered with the error; a batch of reports stays in memory (its tasks
    /// are saved with the next batch that commits): a task the disk is too
    /// full for is shown failed rather than stuck in `downloading` (R54),
    /// while its stored row stays at its last consistent state.
    private func commit(_ batch: inout LoopBatch, undoOnFailure: Bool) {
        if !undoOnFailure {
            batch.update(ids: unsaved)
            unsaved = []
        }
        var failure: CatalogError?
        do { try catalog.commit(batch.catalog(from: tasks)) } catch {
            failure = error
            log.lost(batch.events.count + batch.shownEvents.count, error)
        }
        if let failure, undoOnFailure {
            for (id, old) in batch.originals {
                if let old { tasks.put(old) } else { tasks.remove(id); lives[id] = nil }
            }
            for answer in batch.failed { answer(failure) }
            batch = LoopBatch()
            return
        }
        if failure != nil { unsaved = batch.updated }
        for event in batch.events { log.show(event) }
        for id in batch.touched { publish(id) }
        for (id, effect, task) in batch.effects { carryOut(effect, id: id, task: task) }
        for answer in batch.committed { answer() }
        batch = LoopBatch()
    }

    /// How many connections `task` may use (R18): its own `split`, else the global one.
    private func split(of task: DownloadTask) -> SplitPolicy {
        SplitPolicy.choose(task: task.split, mount: globalSplit)
    }

    /// Tells the engine the split of running tasks whose split changed
    /// (R30, R31); a task started later gets it with its request.
    private func applySplits() {
        guard let engine, !splitsChanged.isEmpty else { return }
        for id in splitsChanged {
            if let task = tasks[id], task.transferring { engine.setSplit(id, split(of: task)) }
        }
        splitsChanged.removeAll()
    }

    private func publish(_ id: Int64) {
        let shown = onChange == nil ? nil : table.entry(id)?.record
        if let task = tasks[id] {
            // Only tasks that have transferred in this mount have live progress.
            let live = lives[id]
            if let live, !task.transferring, task.reading == nil { live.show(task.ranges) }
            table.publish(task, live: live)
        } else {
            // Readers of a removed task's missing bytes: they will not come.
            lives.removeValue(forKey: id)?.release(.failed)
            appliedLimits[id] = nil
            table.remove(id)
        }
        onChange?(shown, tasks[id])
    }

    private func carryOut(_ effect: TaskEffect, id: Int64, task: DownloadTask) {
        switch effect {
        case .startTransfer(let serial, let stored):
            startAttempt(task, serial: serial, stored: stored, readsOnly: false)
        case .startReading(let serial, let stored):
            startAttempt(task, serial: serial, stored: stored, readsOnly: true)
        case .fetchReads:
            engine?.fetchReads(id)
        case .failReads:
            lives[id]?.release(.failed)
        case .releaseReads:
            lives[id]?.release(.ready)
        case .stopTransfer:
            engine?.stop(id)
        case .deletePartial:
            // Readers must not be served what was in it, nor a handle that
            // read it the next version (R23): the file's generation moves
            // on, so a task with no live progress in this mount (a checksum
            // mismatch at a re-verify after a remount) gets one.
            if tasks[id] != nil, lives[id] == nil { lives[id] = LiveProgress() }
            lives[id]?.restart()
            unlink(state.partial(id))
        case .deleteFinished(let name):
            unlink(state.file(name))
        case .verify(let serial, let checksum):
            workers.verify(id, checksum: checksum) { [self] result in
                send(.event(id, .verified(serial: serial, result: result)))
            }
        case .finalize(let serial, let name):
            workers.finalize(id, name: name, lastModified: task.lastModified, origin: OriginAttributes(task),
                             isTaken: { [table] in table.task(named: $0).map { $0.id != id } ?? false }) { [self] result in
                send(.event(id, .finalized(serial: serial, result: result)))
            }
        case .wake(let text):
            waits.wake(id, text)
        case .runHook:
            hooks?.run(id: id, name: task.name, path: state.file(task.name), url: task.url)
        }
    }

    /// Starts an attempt of `task` in the engine; `readsOnly`: one that
    /// fetches only what readers wait for (R23).
    private func startAttempt(_ task: DownloadTask, serial: UInt64, stored: StoredProgress, readsOnly: Bool) {
        let id = task.taskID
        let live = lives[id] ?? LiveProgress(task.ranges)
        lives[id] = live
        table.publish(task, live: live)
        // R19: the engine asks `url` first, so that is the first URL not
        // dropped; with none left it gets the first one anyway, and fails it.
        let urls = task.liveURLs
        engine?.start(TransferRequest(id: id, url: urls.first ?? task.url, mirrors: Array(urls.dropFirst()),
                                      headers: task.options.headers, ranges: task.ranges, known: stored,
                                      split: split(of: task), partialPath: state.partial(id), readsOnly: readsOnly,
                                      retry: machine.retry),
                      serial: serial, live: live)
    }

    /// At shutdown: every transfer stopped and flushed, the workers done,
    /// their reports committed (R3, R50).
    private func stopEverything() {
        shuttingDown = true
        engine?.shutdown()
        workers.drain()
        let messages = inbox.takeAll()
        var reports = LoopBatch()
        for case .event(let id, let event) in messages { report(event, for: id, &reports) }
        reports.shownEvents += log.takePending()
        commit(&reports, undoOnFailure: false)
        for held in heldReplies.values { held.forEach { $0() } }
        heldReplies.removeAll()
        // Readers waiting for bytes: none will come now.
        for live in lives.values { live.release(.failed) }
        for message in messages {
            switch message {
            case .add(_, let reply): reply.answer(.failure(CatalogError("downloadfs is unmounting")))
            case .control(_, _, let reply), .controlGlobal(_, let reply):
                reply.answer(.failure(ControlCommandError("downloadfs is unmounting")))
            case .remove(_, let reply): reply.answer(.failure(CatalogError("downloadfs is unmounting")))
            case .rename(_, _, let reply): reply.answer(.failure(.io(EIO)))
            case .read(_, _, let reader, _): reader(.failed)
            case .shutdown(let reply): reply.answer(.success(()))
            case .event: break
            }
        }
    }
}
