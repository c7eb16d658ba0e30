import Catalog
import CLinux
import DownloadFSCore
import Engine
import Foundation
import Glibc
import Threads

/// The daemon's one owner of tasks: a serial loop on its own thread.
///
/// FUSE threads, the engine and the workers only send it messages through
/// its `LoopClient`;
/// each turn it takes every message that came, hands each to the pure
/// `TaskSet`, which decides everything, commits what the turn changed to the
/// catalog in one transaction (group commit; what reports changed is kept up
/// to 2 ms for company, `ReportPacing`) — or, when that fails, has the set
/// undo a turn of user requests — and only then has `TaskEffects` show and
/// carry it out and answers the writers waiting (R15). Nothing outside the
/// loop changes a task, so nothing needs a lock across I/O.
///
/// A thread rather than an actor: a turn blocks on SQLite's commit, which
/// must not hold one of the cooperative pool's two threads, and a thread's
/// condition wakes within microseconds.
final class TaskLoop: @unchecked Sendable {
    let state: StateDirectory
    let catalog: Catalog
    let table = TaskTable()
    let log: EventLog
    let waits = WaitRegistry()
    /// Called with each turn's committed changes (R24); set once, before the
    /// loop starts; it must not block.
    var onChanges: (@Sendable ([TaskChange]) -> Void)?
    /// Where requests and reports come in.
    let client = LoopClient()
    let configuration: DaemonConfiguration
    private var effects: TaskEffects!
    private let finished = DispatchSemaphore(value: 0)
    /// Signalled by `begin`: the loop thread's first turn waits for it.
    private let go = DispatchSemaphore(value: 0)

    // MARK: loop thread only

    private var set: TaskSet
    private var replies = PendingReplies()
    /// What reports changed and is not committed yet (`ReportPacing`).
    private var reports = TaskSetTurn()
    private var pacing = ReportPacing()
    /// Tasks changed by reports whose batch could not be committed: saved
    /// with the next batch.
    private var unsaved: Set<Int64> = []
    /// Log lines of such batches (a task's `failed: No space left on
    /// device` among them): stored with the next batch, so the task's `log`
    /// gets them once the disk has room. At most `unsavedLinesKept`, the
    /// newest.
    private var unsavedLines: [EventRecord] = []
    static let unsavedLinesKept = 10_000

    init(state: StateDirectory, catalog: Catalog, log: EventLog, configuration: DaemonConfiguration) {
        self.state = state
        self.catalog = catalog
        self.log = log
        self.configuration = configuration
        set = TaskSet(machine: TaskMachine(retry: RetryPolicy(maxTries: configuration.maxTries)),
                      maxActive: configuration.maxActive, globalLimit: configuration.speedLimit,
                      globalSplit: configuration.split, seed: UInt64.random(in: .min ... .max),
                      isFileNameOnDisk: { access(state.file($0), F_OK) == 0 })
        effects = TaskEffects(state: state, table: table, waits: waits, log: log, onComplete: configuration.onComplete,
                              report: { [client] id, event in client.send(.event(id, event)) })
    }

    /// Told what FUSE threads saw of each task before and after a commit's
    /// changes (R7); set once, before the loop starts.
    var onChange: (@Sendable (_ changes: [(old: DownloadTask?, new: DownloadTask?, forgotten: Bool)]) -> Void)? {
        get { effects.onChange }
        set { effects.onChange = newValue }
    }

    // MARK: - startup and shutdown

    /// Loads the catalog and reconciles it with the data on disk (R50, R51),
    /// before the mount is up; the loop is not running yet.
    func load() throws(DaemonError) {
        do { set.giveIDs(after: try catalog.highestTaskID()) } catch { throw DaemonError(error.message) }
        try StoredTasks(state: state, catalog: catalog, log: log).load(into: &set)
        table.publish(set.tasks.snapshot)
        table.publish(set.settings)
        // Loading decoded every row: give the garbage back before serving.
        clinux_malloc_trim()
    }

    func attach(_ engine: Engine) { effects.engine = engine }

    /// Makes the loop thread, before the mount: a daemon that could not
    /// make it fails to mount, rather than mount a filesystem whose every
    /// request would wait for ever. The thread waits for `begin`.
    func prepare() throws(DaemonError) {
        do {
            try OSThread.start("downloadfs-loop") { [self] in
                go.wait()
                while true {
                    let wait = pacing.deadline.map { max(0, $0 - MonotonicClock.now()) } ?? 0.25
                    _ = client.wakeUp.wait(timeout: .now() + wait)
                    if turn(client.takeAll()) { break }
                }
                finished.signal()
            }
        } catch { throw DaemonError(error.message) }
    }

    /// Lets the loop thread run; called once the mount is up and the engine runs.
    func begin() {
        log.deliver { [client] in client.wakeUp.signal() }
        go.signal()
        client.wakeUp.signal()
    }

    /// Stops every transfer, flushed and committed, then the loop (R3).
    func shutdown() {
        let reply = LoopReply<Void, Never>()
        client.send(.shutdown(reply))
        reply.wait()
        finished.wait()
    }

    // MARK: - the loop

    /// One turn; true when the loop is to end (after a shutdown).
    private func turn(_ messages: [LoopMessage]) -> Bool {
        var requests = TaskSetTurn()
        var shutdownReply: LoopReply<Void, Never>?
        let (now, clock) = (Date(), MonotonicClock.now())
        // Requests and readers see the reports before them committed and
        // carried out, as if each report had had its own turn.
        let onlyReports = messages.allSatisfy { if case .event = $0 { true } else { false } }
        if !onlyReports { commitReports() }
        for message in messages {
            switch message {
            case .event(let id, let event):
                set.handle(.report(id, event), now: now, monotonic: clock, into: &reports)
                if case .finished = event, effects.readersWait(id) {
                    set.handle(.attemptEndedWithReaders(id), now: now, monotonic: clock, into: &reports)
                }
            case .read(let id, let range, let reader, let parked):
                if effects.park(set.tasks[id], range, reader, parked) {
                    set.handle(.readerParked(id), now: now, monotonic: clock, into: &reports)
                }
            case .shutdown(let reply):
                shutdownReply = reply
            default:
                if let request = replies.file(message) {
                    // A report of this turn (a completion) is committed
                    // before a request that acts on what it changed (a
                    // `forget`): `events` shows changes in commit order (R24).
                    if !reports.isEmpty { commitReports() }
                    var own = TaskSetTurn()
                    set.handle(request, now: now, monotonic: clock, into: &own)
                    // `mv`, `mkdir`: done on disk before the change is committed.
                    if let code = effects.rename(own.renames) ?? effects.makeFolders(own.folders) {
                        set.undo(own)
                        for (token, _) in own.replies { replies.answer(token, .success(.renameRefused(.io(code)))) }
                    } else {
                        requests.absorb(own)
                    }
                }
            }
        }
        // User requests first, in their own transaction: when it fails they
        // are undone and answered with the error, as if never written.
        commit(&requests, undoable: true)
        set.handle(.schedule, now: now, monotonic: clock, into: &reports)
        for (id, effect, task) in reports.takeStartsBeforeCommit() { effects.carryOut(effect, id: id, task: task, in: set) }
        let moreToDo = reports.moreToDo
        let downloading = !set.tasks.running.isEmpty
        if pacing.downloadsEnded(downloading: downloading) { effects.engine?.noneDownloading() }
        // Also to commit: rows whose commit failed, and the daemon's own lines.
        if pacing.commitNow(at: clock, onlyReports: onlyReports,
                            changes: !reports.isEmpty || !unsaved.isEmpty || !unsavedLines.isEmpty || log.hasPending,
                            replies: !reports.replies.isEmpty, downloading: downloading) {
            commitReports()
        }
        if moreToDo { client.wakeUp.signal() }
        guard let shutdownReply else { return false }
        stopEverything()
        shutdownReply.answer(.success(()))
        return true
    }

    /// Commits what reports changed since the last time (`ReportPacing`).
    private func commitReports() {
        commit(&reports, undoable: false)
        pacing.committed()
    }

    /// Commits the turn; then shows its tasks, carries out its effects and
    /// answers its writers. On failure a turn of user requests is undone and
    /// answered with the error; a turn of reports stays in memory (its tasks
    /// are saved with the next turn that commits): a task the disk is too
    /// full for is shown failed rather than stuck in `downloading` (R54),
    /// while its stored row stays at its last consistent state.
    private func commit(_ turn: inout TaskSetTurn, undoable: Bool) {
        defer { turn = TaskSetTurn() }
        if !undoable {
            turn.saveAgain(unsaved)
            unsaved = []
        }
        let shown = undoable ? [] : log.takePending()
        let records = turn.log.map { EventRecord(taskID: $0.taskID, at: $0.at, message: $0.message) }
        var batch = CatalogBatch()
        batch.inserts = turn.inserted.compactMap { set.tasks[$0] }
        batch.updates = turn.updated.compactMap { set.tasks[$0] }
        batch.deletes = Array(turn.deleted)
        batch.events = (undoable ? [] : unsavedLines) + records + shown
        if !batch.isEmpty {
            do {
                try catalog.commit(batch)
                if !undoable { unsavedLines = [] }
            } catch {
                guard undoable else {
                    log.notStoredYet(batch.events.count, kept: min(batch.events.count, Self.unsavedLinesKept), error)
                    unsaved = turn.updated.union(turn.inserted)
                    unsavedLines = Array(batch.events.suffix(Self.unsavedLinesKept))
                    return carryOut(turn, records)
                }
                log.lost(batch.events.count, error)
                set.undo(turn)
                effects.renameBack(turn.renames)
                effects.removeFolders(turn.folders)
                replies.failTurn(error)
                return
            }
        }
        if undoable { replies.endTurn() }
        carryOut(turn, records)
    }

    private func carryOut(_ turn: TaskSetTurn, _ records: [EventRecord]) {
        log.show(records)
        if !turn.touched.isEmpty { table.publish(set.tasks.snapshot) }
        if table.settings != set.settings { table.publish(set.settings) }
        let forgotten = Set(turn.changes.filter { $0.event == "forgotten" }.map(\.id))
        for (id, old) in turn.before {
            effects.shown(id, was: old, is: set.tasks[id], forgotten: forgotten.contains(id))
        }
        effects.announceShown()
        for (id, effect, task) in turn.effects { effects.carryOut(effect, id: id, task: task, in: set) }
        effects.startWork()
        effects.tellEngine(turn)
        if !turn.changes.isEmpty { onChanges?(turn.changes) }
        for (token, reply) in turn.replies { replies.answer(token, .success(reply)) }
    }

    /// At shutdown: every transfer stopped and flushed, the workers done,
    /// their reports committed (R3, R50).
    private func stopEverything() {
        let (now, clock) = (Date(), MonotonicClock.now())
        var last = TaskSetTurn()
        set.handle(.shutdown, now: now, monotonic: clock, into: &last)
        effects.stopTransfers()
        let messages = client.takeAll()
        for case .event(let id, let event) in messages {
            set.handle(.report(id, event), now: now, monotonic: clock, into: &last)
        }
        commit(&last, undoable: false)
        for token in set.heldTokens { replies.answer(token, .success(.done)) }
        effects.releaseReaders()
        for message in messages {
            switch message {
            case .add(_, let reply): reply.answer(.failure(CatalogError("downloadfs is unmounting")))
            case .control(_, _, let reply), .controlGlobal(_, let reply):
                reply.answer(.failure(ControlCommandError("downloadfs is unmounting")))
            case .remove(_, let reply): reply.answer(.failure(CatalogError("downloadfs is unmounting")))
            case .rename(_, _, let reply), .renameFile(_, _, _, let reply), .makeFolder(_, let reply):
                reply.answer(.failure(.io(EIO)))
            case .read(_, _, let reader, _): reader(.failed)
            case .shutdown(let reply): reply.answer(.success(()))
            case .event: break
            }
        }
    }
}
