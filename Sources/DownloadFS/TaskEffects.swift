import Catalog
import DownloadFSCore
import Engine
import Foundation
import CLinux
import Glibc

/// Carries out what the task set decided, once committed: shows tasks to
/// FUSE threads (`TaskTable`), starts and stops attempts in the engine,
/// deletes and renames files, hands checksums and moves into files/ to the
/// workers, wakes `wait` readers and runs the hook. It also keeps each
/// task's `LiveProgress` (bytes written and readers waiting, R23). Loop
/// thread only; it decides nothing.
final class TaskEffects {
    private let state: StateDirectory
    private let table: TaskTable
    private let waits: WaitRegistry
    private let log: EventLog
    private let hooks: CompletionHook?
    private let workers: TaskWorkers
    /// How worker results come back to the loop.
    private let report: @Sendable (Int64, TaskEvent) -> Void
    var engine: Engine?
    /// Told what FUSE threads saw of each task a commit showed, before and
    /// after, and whether it went by `forget` (its file stays, R34): once
    /// per commit, so the kernel's notices of a group of tasks go out
    /// together (`announceShown`).
    var onChange: (@Sendable (_ changes: [(old: DownloadTask?, new: DownloadTask?, forgotten: Bool)]) -> Void)?
    /// What `shown` saw since the last `announceShown`.
    private var shownChanges: [(old: DownloadTask?, new: DownloadTask?, forgotten: Bool)] = []
    /// Only tasks that have transferred or been read in this mount have one.
    private var lives: [Int64: LiveProgress] = [:]
    /// The turn's moves into files/, handed to the workers as one job (`startWork`).
    private var moves: [TaskWorkers.Move] = []

    init(state: StateDirectory, table: TaskTable, waits: WaitRegistry, log: EventLog, onComplete: String?,
         report: @escaping @Sendable (Int64, TaskEvent) -> Void) {
        self.state = state
        self.table = table
        self.waits = waits
        self.log = log
        hooks = onComplete.map { CompletionHook(command: $0, log: log) }
        workers = TaskWorkers(state: state)
        self.report = report
    }

    // MARK: readers (R23)

    /// Parks a reader in its task's live progress (made if the task has
    /// none yet); true when it waits, so the task must fetch for it.
    func park(_ task: DownloadTask?, _ range: Range<Int64>?, _ reader: @escaping LiveProgress.Reader,
              _ parked: @Sendable (LiveProgress, UInt64) -> Void) -> Bool {
        guard let task else {
            reader(.failed)
            return false
        }
        let live = progress(of: task)
        let token = live.wait(for: range, reader)
        guard token != 0 else { return false }
        parked(live, token)
        return true
    }

    func readersWait(_ id: Int64) -> Bool {
        (lives[id]?.readersWaiting.load(ordering: .relaxed) ?? 0) > 0
    }

    private func progress(of task: DownloadTask) -> LiveProgress {
        if let live = lives[task.taskID] { return live }
        let live = LiveProgress(task.ranges)
        lives[task.taskID] = live
        table.setLive(task.taskID, live)
        return live
    }

    // MARK: showing

    /// After the committed task set is published: what a task's change
    /// means for its live progress, and for the kernel's caches (R7).
    func shown(_ id: Int64, was old: DownloadTask?, is task: DownloadTask?, forgotten: Bool) {
        if let task {
            if let live = lives[id], !task.transferring, task.reading == nil { live.show(task.ranges) }
        } else if let live = lives.removeValue(forKey: id) {
            // Readers of a removed task's missing bytes: they will not come.
            live.release(.failed)
            table.setLive(id, nil)
        }
        shownChanges.append((old, task, forgotten))
    }

    /// Tells `onChange` what the tasks shown since the last call were and are.
    func announceShown() {
        guard !shownChanges.isEmpty else { return }
        onChange?(shownChanges)
        shownChanges.removeAll(keepingCapacity: true)
    }

    // MARK: files/ (R40)

    /// Makes the turn's renames on disk, all or none, never over a file
    /// (one put there since the task set looked); the errno of the first
    /// that failed.
    func rename(_ renames: [(from: String, to: String)]) -> Int32? {
        for (done, pair) in renames.enumerated()
        where clinux_rename_noreplace(state.file(pair.from), state.file(pair.to)) != 0 {
            let code = errno
            renameBack(Array(renames.prefix(done)))
            return code
        }
        return nil
    }

    /// Makes the turn's folders (0755, as `mkdir` asks by default; the
    /// mount shows every folder 0755 whatever it asked); the errno of the
    /// first that failed, the ones before it removed again.
    func makeFolders(_ folders: [String]) -> Int32? {
        for (done, folder) in folders.enumerated() where mkdir(state.file(folder), 0o755) != 0 {
            let code = errno
            removeFolders(Array(folders.prefix(done)))
            return code
        }
        return nil
    }

    /// Undoes `makeFolders` whose commit failed.
    func removeFolders(_ folders: [String]) {
        for folder in folders.reversed() { rmdir(state.file(folder)) }
    }

    /// Undoes renames whose commit failed.
    func renameBack(_ renames: [(from: String, to: String)]) {
        for pair in renames.reversed() { _ = Glibc.rename(state.file(pair.to), state.file(pair.from)) }
    }

    // MARK: effects

    func carryOut(_ effect: TaskEffect, id: Int64, task: DownloadTask, in set: TaskSet) {
        switch effect {
        case .startTransfer(let serial, let stored):
            startAttempt(task, serial: serial, stored: stored, readsOnly: false, in: set)
        case .startReading(let serial, let stored):
            startAttempt(task, serial: serial, stored: stored, readsOnly: true, in: set)
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
            if set.tasks[id] != nil, lives[id] == nil {
                lives[id] = LiveProgress()
                table.setLive(id, lives[id])
            }
            lives[id]?.restart()
            unlink(state.partial(id))
        case .deleteFinished(let name):
            unlink(state.file(name))
        case .keepFile(let name):
            // Files finished since 0.x carry it already; older ones get it now.
            if let failure = OriginAttributes(task).store(on: state.file(name)) {
                log.daemon("task \(id) forgotten: its file \(name) keeps no origin attributes "
                    + "(\(failure)); it stays in files/", level: .warning)
            }
        case .verify(let serial, let checksum):
            workers.verify(id, checksum: checksum) { [report] result in
                report(id, .verified(serial: serial, result: result))
            }
        case .finalize(let serial, let name):
            moves.append(TaskWorkers.Move(id: id, name: name, lastModified: task.lastModified,
                                          origin: OriginAttributes(task)) { [report] result in
                report(id, .finalized(serial: serial, result: result))
            })
        case .wake(let text):
            waits.wake(id, text)
        case .runHook:
            hooks?.run(id: id, name: task.fileName, path: state.file(task.name), url: task.url)
        }
    }

    /// Hands the work the turn's effects gathered to the workers: its moves
    /// into files/ as one job (a group of files flushed together finishes
    /// together, and shares the next commit).
    func startWork() {
        guard !moves.isEmpty else { return }
        workers.finalize(moves) { [table] name, id in table.task(named: name).map { $0.id != id } ?? false }
        moves = []
    }

    /// Starts an attempt of `task` in the engine; `readsOnly`: one that
    /// fetches only what readers wait for (R23).
    private func startAttempt(_ task: DownloadTask, serial: UInt64, stored: StoredProgress, readsOnly: Bool,
                              in set: TaskSet) {
        let id = task.taskID
        let live = progress(of: task)
        // R19: the engine asks `url` first, so that is the first URL not
        // dropped; with none left it gets the first one anyway, and fails it.
        let urls = task.liveURLs
        engine?.start(TransferRequest(id: id, url: urls.first ?? task.url, mirrors: Array(urls.dropFirst()),
                                      connection: ConnectionOptions(task.options), ranges: task.ranges, known: stored,
                                      split: set.split(of: task), partialPath: state.partial(id),
                                      readsOnly: readsOnly, retry: set.machine.retry),
                      serial: serial, live: live)
    }

    /// The engine's limits and splits the turn changed (R18, R30, R31).
    func tellEngine(_ turn: TaskSetTurn) {
        guard let engine else { return }
        for (id, limit) in turn.speedLimits { engine.setSpeedLimit(id, bytesPerSecond: limit) }
        for (id, split) in turn.splits { engine.setSplit(id, split) }
    }

    // MARK: unmount (R3)

    /// Stops every transfer, flushed, and waits for the workers.
    func stopTransfers() {
        engine?.shutdown()
        workers.drain()
    }

    /// Readers waiting for bytes: none will come now.
    func releaseReaders() {
        for live in lives.values { live.release(.failed) }
    }
}
