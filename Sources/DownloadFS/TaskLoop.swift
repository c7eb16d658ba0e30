import CLinux
import Catalog
import DownloadFSCore
import Engine
import Foundation
import Glibc

/// The daemon's one owner of tasks: a serial loop on its own thread.
///
/// FUSE threads, the engine and the workers only send it messages (`send`);
/// each turn it takes every message that came, hands each to the pure
/// `TaskSet`, which decides everything, commits what the turn changed to the
/// catalog in one transaction (group commit) — or, when that fails, has the
/// set undo a turn of user requests — and only then has `TaskEffects` show
/// and carry it out and answers the writers waiting (R15). Nothing outside
/// the loop changes a task, so nothing needs a lock across I/O.
///
/// A thread rather than an actor: a turn blocks on SQLite's commit, which
/// must not hold one of the cooperative pool's two threads, and a thread's
/// condition wakes within microseconds.
final class TaskLoop: EngineDelegate, @unchecked Sendable {
    typealias Answer = (Result<TaskSetReply, CatalogError>) -> Void

    let state: StateDirectory
    let catalog: Catalog
    let table = TaskTable()
    let log: EventLog
    let waits = WaitRegistry()
    /// Called with each turn's committed changes (R24); set once, before the
    /// loop starts; it must not block.
    var onChanges: (@Sendable ([TaskChange]) -> Void)?
    private let configuration: DaemonConfiguration
    private var effects: TaskEffects!

    private let inbox = Inbox<LoopMessage>()
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    // MARK: loop thread only

    private var set: TaskSet
    /// Writers waiting for their request's reply, by token.
    private var answers: [UInt64: Answer] = [:]
    private var nextToken: UInt64 = 1
    /// Tokens of this turn's user requests (answered with the error if undone).
    private var requestTokens: [UInt64] = []
    /// Tasks changed by reports whose batch could not be committed: saved
    /// with the next batch.
    private var unsaved: Set<Int64> = []

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
                              report: { [unowned self] id, event in send(.event(id, event)) })
    }

    /// Told what FUSE threads saw of a task before and after each change
    /// (R7); set once, before the loop starts.
    var onChange: (@Sendable (_ old: DownloadTask?, _ new: DownloadTask?, _ forgotten: Bool) -> Void)? {
        get { effects.onChange }
        set { effects.onChange = newValue }
    }

    // MARK: - startup and shutdown

    /// Loads the catalog and reconciles it with the data on disk (R50, R51),
    /// before the mount is up; the loop is not running yet.
    func load() throws(DaemonError) {
        do {
            set = TaskSet(machine: set.machine, maxActive: set.maxActive, globalLimit: set.globalLimit,
                          globalSplit: configuration.split, nextID: try catalog.highestTaskID() + 1,
                          seed: UInt64.random(in: .min ... .max),
                          isFileNameOnDisk: { [state] in access(state.file($0), F_OK) == 0 })
        } catch { throw DaemonError(error.message) }
        try StoredTasks(state: state, catalog: catalog, log: log).load(into: &set)
        table.publish(set.tasks.snapshot)
        // Loading decoded every row: give the garbage back before serving.
        clinux_malloc_trim()
    }

    func attach(_ engine: Engine) { effects.engine = engine }

    /// Starts the loop thread; called once the mount is up and the engine runs.
    func begin() {
        log.deliver { [self] in wakeUp.signal() }
        let thread = Thread { [self] in
            clinux_name_thread("downloadfs-loop")
            while true {
                _ = wakeUp.wait(timeout: .now() + 0.25)
                if turn(inbox.takeAll()) { break }
            }
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

    /// `mv` inside files/ of a file no task has (R34).
    func renameFile(_ name: String, to newName: String) throws(RenameError) {
        let reply = LoopReply<Void, RenameError>()
        send(.renameFile(name, newName, reply))
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

    /// One turn; true when the loop is to end (after a shutdown).
    private func turn(_ messages: [LoopMessage]) -> Bool {
        var requests = TaskSetTurn()
        var reports = TaskSetTurn()
        var shutdownReply: LoopReply<Void, Never>?
        let (now, clock) = (Date(), MonotonicClock.now())
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
                if let request = file(message) {
                    var own = TaskSetTurn()
                    set.handle(request, now: now, monotonic: clock, into: &own)
                    // `mv`: the file is renamed before the change is committed.
                    if let code = effects.rename(own.renames) {
                        set.undo(own)
                        for (token, _) in own.replies { answer(token, .success(.renameRefused(.io(code)))) }
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
        commit(&reports, undoable: false)
        guard let shutdownReply else { return false }
        stopEverything()
        shutdownReply.answer(.success(()))
        return true
    }

    /// The task set's request for a user's message, its reply filed by token.
    private func file(_ message: LoopMessage) -> TaskSetRequest? {
        let token = nextToken
        nextToken += 1
        requestTokens.append(token)
        switch message {
        case .add(let entries, let reply):
            answers[token] = { result in
                reply.answer(result.map { if case .ids(let ids) = $0 { ids } else { [] } })
            }
            return .add(entries, token: token)
        case .control(let id, let command, let reply):
            answers[token] = Self.controlAnswer(reply)
            return .control(id, command, token: token)
        case .controlGlobal(let command, let reply):
            answers[token] = Self.controlAnswer(reply)
            return .controlGlobal(command, token: token)
        case .remove(let id, let reply):
            answers[token] = { result in reply.answer(result.map { _ in () }) }
            return .remove(id, token: token)
        case .rename(let id, let name, let reply):
            answers[token] = Self.renameAnswer(reply)
            return .rename(id, to: name, token: token)
        case .renameFile(let name, let newName, let reply):
            answers[token] = Self.renameAnswer(reply)
            return .renameFile(name, to: newName, token: token)
        case .event, .read, .shutdown:
            requestTokens.removeLast()
            return nil
        }
    }

    private static func controlAnswer(_ reply: LoopReply<Void, ControlCommandError>) -> Answer {
        { result in
            switch result {
            case .success(.refused(let why)): reply.answer(.failure(ControlCommandError(why)))
            case .success: reply.answer(.success(()))
            case .failure(let error): reply.answer(.failure(ControlCommandError(error.message)))
            }
        }
    }

    private static func renameAnswer(_ reply: LoopReply<Void, RenameError>) -> Answer {
        { result in
            switch result {
            case .success(.renameRefused(let error)): reply.answer(.failure(error))
            case .success: reply.answer(.success(()))
            case .failure: reply.answer(.failure(.io(EIO)))
            }
        }
    }

    private func answer(_ token: UInt64, _ result: Result<TaskSetReply, CatalogError>) {
        answers.removeValue(forKey: token)?(result)
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
        batch.events = records + shown
        if !batch.isEmpty {
            do { try catalog.commit(batch) } catch {
                log.lost(batch.events.count, error)
                guard undoable else {
                    unsaved = turn.updated.union(turn.inserted)
                    return carryOut(turn, records)
                }
                set.undo(turn)
                effects.renameBack(turn.renames)
                for token in requestTokens { answer(token, .failure(error)) }
                requestTokens = []
                return
            }
        }
        if undoable { requestTokens = [] }
        carryOut(turn, records)
    }

    private func carryOut(_ turn: TaskSetTurn, _ records: [EventRecord]) {
        for record in records { log.show(record) }
        if !turn.touched.isEmpty { table.publish(set.tasks.snapshot) }
        let forgotten = Set(turn.changes.filter { $0.event == "forgotten" }.map(\.id))
        for (id, old) in turn.before {
            effects.shown(id, was: old, is: set.tasks[id], forgotten: forgotten.contains(id))
        }
        for (id, effect, task) in turn.effects { effects.carryOut(effect, id: id, task: task, in: set) }
        effects.tellEngine(turn)
        if !turn.changes.isEmpty { onChanges?(turn.changes) }
        for (token, reply) in turn.replies { answer(token, .success(reply)) }
    }

    /// At shutdown: every transfer stopped and flushed, the workers done,
    /// their reports committed (R3, R50).
    private func stopEverything() {
        let (now, clock) = (Date(), MonotonicClock.now())
        var reports = TaskSetTurn()
        set.handle(.shutdown, now: now, monotonic: clock, into: &reports)
        effects.stopTransfers()
        let messages = inbox.takeAll()
        for case .event(let id, let event) in messages {
            set.handle(.report(id, event), now: now, monotonic: clock, into: &reports)
        }
        commit(&reports, undoable: false)
        for token in set.heldTokens { answer(token, .success(.done)) }
        effects.releaseReaders()
        for message in messages {
            switch message {
            case .add(_, let reply): reply.answer(.failure(CatalogError("downloadfs is unmounting")))
            case .control(_, _, let reply), .controlGlobal(_, let reply):
                reply.answer(.failure(ControlCommandError("downloadfs is unmounting")))
            case .remove(_, let reply): reply.answer(.failure(CatalogError("downloadfs is unmounting")))
            case .rename(_, _, let reply), .renameFile(_, _, let reply): reply.answer(.failure(.io(EIO)))
            case .read(_, _, let reader, _): reader(.failed)
            case .shutdown(let reply): reply.answer(.success(()))
            case .event: break
            }
        }
    }
}
