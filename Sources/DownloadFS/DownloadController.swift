import Catalog
import DownloadFSCore
import Engine
import Foundation
import Glibc

/// The daemon's one writer: turns user commands and engine reports into
/// state transitions, commits each to the catalog before the task table shows
/// it (R15), and asks the pure `Scheduler` who runs next (R16).
///
/// Thread-safety: every mutation runs under `lock` (FUSE threads, the engine
/// thread, the checkpointer). Lock order: `lock` → the task table's lock.
/// The engine is only sent commands (never waited on) while `lock` is held,
/// so the engine thread may block on `lock` in `transferStarted` safely.
final class DownloadController: EngineDelegate, @unchecked Sendable {
    let state: StateDirectory
    let catalog: Catalog
    let table = TaskTable()
    let log: EventLog
    let waits = WaitRegistry()
    private var engine: Engine!
    private let lock = NSLock()
    private let hooks: CompletionHook?

    // Guarded by `lock`.
    private var maxActive: Int
    private var globalLimit: Int64
    private var retryPolicy: RetryPolicy
    private var nextPosition: Int64 = 1
    private var nextSerial: UInt64 = 1
    private var appliedLimits: [Int64: Int64] = [:]
    private var shuttingDown = false
    private var ticker: DispatchSourceTimer?

    init(state: StateDirectory, catalog: Catalog, log: EventLog, configuration: DaemonConfiguration) {
        self.state = state
        self.catalog = catalog
        self.log = log
        maxActive = configuration.maxActive
        globalLimit = configuration.speedLimit
        retryPolicy = RetryPolicy(maxTries: configuration.maxTries)
        hooks = configuration.onComplete.map { CompletionHook(command: $0, log: log) }
    }

    func attach(_ engine: Engine) { self.engine = engine }

    // MARK: - startup

    /// Loads the catalog into memory and reconciles it with the data dirs.
    func load() throws(DaemonError) {
        for note in state.secure() { log.daemon(note, level: .warning) }
        let records: [TaskRecord]
        do { records = try catalog.loadTasks() } catch { throw DaemonError(error.message) }
        var changed: [TaskRecord] = []
        var known = Set<Int64>()
        for var record in records {
            let original = record
            known.insert(record.taskID)
            reconcile(&record)
            if record != original { changed.append(record) }
            nextPosition = max(nextPosition, record.position + 1)
            let live = LiveProgress(written: record.downloaded)
            table.put(TaskEntry(record: record, live: live))
        }
        if !changed.isEmpty {
            do { try catalog.save(changed) } catch { throw DaemonError(error.message) }
        }
        do { try catalog.trimLogs() } catch { log.daemon(error.message, level: .warning) }
        keepOrphanedPartials()
    }

    /// Partial data with no unfinished task behind it (the catalog was lost
    /// or replaced) is moved to `STATE/orphaned/`, never deleted: losing the
    /// catalog is the user's doing, deleting their data would be ours.
    private func keepOrphanedPartials() {
        let partials = (try? FileManager.default.contentsOfDirectory(atPath: state.partialDir)) ?? []
        for name in partials {
            if let entry = table.entry(Int64(name) ?? -1), entry.record.state != .completed { continue }
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

    /// What a remount makes of a stored task (R50): running ones carry on,
    /// and the stored byte count is checked against the files on disk.
    private func reconcile(_ record: inout TaskRecord) {
        let id = record.taskID
        switch record.state {
        case .downloading, .verifying, .retrying:
            record.state = .queued
            record.retryAt = nil
        default:
            break
        }
        if record.state == .completed {
            if access(state.file(record.name), F_OK) != 0 {
                record.state = .failed
                record.error = "the finished file is gone from the state dir; resume to download it again"
                record.downloaded = 0
                log.task(id, "finished file \(record.name) is missing; marked failed")
            }
            return
        }
        var st = stat()
        if stat(state.partial(id), &st) == 0 {
            if Int64(st.st_size) < record.downloaded {
                log.task(id, "partial data is shorter than its checkpoint; continuing from \(st.st_size) bytes")
                record.downloaded = Int64(st.st_size)
            }
        } else if record.downloaded > 0 {
            // Crash between moving a finished file and committing it?
            var done = stat()
            if stat(state.file(record.name), &done) == 0, let total = record.total, Int64(done.st_size) == total {
                record.state = .completed
                record.downloaded = total
                record.completedAt = record.completedAt ?? Date()
                return
            }
            log.task(id, "partial data is missing; starting over")
            record.downloaded = 0
        }
    }

    /// Starts scheduling and the retry timer; called once the mount is up.
    func begin() {
        lock.lock()
        schedule()
        lock.unlock()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "downloadfs.retry"))
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        ticker = timer
    }

    /// Stops every transfer, flushed and committed, for an unmount (R3).
    func shutdown() {
        lock.lock()
        shuttingDown = true
        ticker?.cancel()
        lock.unlock()
        engine.shutdown()
    }

    // MARK: - commands from the filesystem

    /// Adds tasks (R10, R13); returns one id per entry, existing ids for URLs
    /// already known.
    func add(_ entries: [InputEntry]) throws(CatalogError) -> [Int64] {
        guard !entries.isEmpty else { return [] }
        lock.lock()
        defer { lock.unlock() }
        var fresh: [TaskRecord] = []
        var freshKeys: [String] = []
        var reserved = Set<String>()
        var answer: [Int64?] = []
        let now = Date()
        for entry in entries {
            let key = URLNormalizer.normalize(entry.url)
            if let id = table.task(forURL: key) {
                answer.append(id)
                continue
            }
            if freshKeys.contains(key) {
                answer.append(nil)
                continue
            }
            let desired = FileName.resolve(out: entry.options.out, contentDisposition: nil, finalURL: entry.url)
            let name = FileName.unique(desired) { reserved.contains($0) || self.isNameTaken($0) }
            reserved.insert(name)
            fresh.append(TaskRecord(url: entry.url, normalizedURL: key, options: entry.options, name: name,
                                    addedAt: now, position: nextPosition))
            freshKeys.append(key)
            nextPosition += 1
            answer.append(nil)
        }
        let stored = try catalog.insert(fresh) { "added: \(URLNormalizer.maskingPassword($0.url))" }
        var byKey: [String: Int64] = [:]
        for record in stored {
            byKey[record.normalizedURL] = record.taskID
            table.put(TaskEntry(record: record, live: LiveProgress()))
            log.daemon("task \(record.taskID) added: \(URLNormalizer.maskingPassword(record.url))")
        }
        schedule()
        return zip(entries, answer).map { entry, id in id ?? byKey[URLNormalizer.normalize(entry.url)] ?? 0 }
    }

    private func isNameTaken(_ name: String) -> Bool {
        table.isNameTaken(name) || access(state.file(name), F_OK) == 0
    }

    /// Stops running transfers and waits until their bytes are flushed and
    /// committed, so a task shown `paused` shows its final count (R30, R51).
    /// Called without the lock: the engine's reports need it.
    private func stopAndWait(_ ids: [Int64]) {
        let group = DispatchGroup()
        for id in ids where table.entry(id)?.record.state == .downloading {
            group.enter()
            engine.stop(id) { group.leave() }
        }
        _ = group.wait(timeout: .now() + 30)
    }

    /// A command written to `queue/<id>/ctl` (R30).
    func control(_ id: Int64, _ command: ControlCommand) throws(ControlCommandError) {
        if command == .pause { stopAndWait([id]) }
        lock.lock()
        defer { lock.unlock() }
        guard let entry = table.entry(id) else { throw ControlCommandError("task \(id) does not exist") }
        let current = entry.record.state
        switch command {
        case .pause:
            switch current {
            case .paused: return
            case .queued, .downloading, .retrying:
                if current == .downloading { engine.stop(id) }
                try transition(id, to: .paused, event: "paused")
            default:
                throw ControlCommandError("cannot pause a \(current.rawValue) task")
            }
        case .resume:
            switch current {
            case .paused, .failed:
                try transition(id, to: .queued, event: "resumed") {
                    $0.failuresWithoutData = 0
                    $0.error = nil
                }
            case .queued, .downloading, .retrying, .verifying: return
            case .completed: throw ControlCommandError("task \(id) is already completed")
            }
        case .start:
            switch current {
            case .downloading, .verifying: return
            case .completed: throw ControlCommandError("task \(id) is already completed")
            default:
                let plan = Scheduler.startNow(id, in: schedulable(table.all()), maxActive: maxActive)
                for other in plan.demote { demote(other, why: "made room for task \(id) (start)") }
                if current != .queued {
                    try transition(id, to: .queued, event: "start requested") { $0.error = nil; $0.failuresWithoutData = 0 }
                }
                startTransfer(id)
            }
        case .top:
            let position = Scheduler.topPosition(in: schedulable(table.all()))
            try commit(id, event: "moved to the head of the waiting line") { $0.position = position }
        case .limit(let rate):
            try commit(id, event: rate > 0 ? "speed limit \(Units.speed(Double(rate)))" : "speed limit removed") {
                $0.speedLimit = rate
            }
        default:
            throw ControlCommandError("that command belongs in the root ctl")
        }
        schedule()
    }

    /// A command written to the root `ctl` (R31).
    func controlGlobal(_ command: ControlCommand) throws(ControlCommandError) {
        if command == .pauseAll { stopAndWait(table.inFlight().map(\.id)) }
        lock.lock()
        defer { lock.unlock() }
        switch command {
        case .maxActive(let n):
            maxActive = n
            log.daemon("max-active set to \(n)")
        case .globalLimit(let rate):
            globalLimit = rate
            log.daemon(rate > 0 ? "global speed limit \(Units.speed(Double(rate)))" : "global speed limit removed")
        case .pauseAll:
            // Every in-flight task but one being verified (its data is whole).
            for entry in table.inFlight() where entry.record.state != .verifying {
                if entry.record.state == .downloading { engine.stop(entry.id) }
                try transition(entry.id, to: .paused, event: "paused (pause-all)")
            }
        case .resumeAll:
            for entry in table.all() where entry.record.state == .paused {
                try transition(entry.id, to: .queued, event: "resumed (resume-all)")
            }
        default:
            throw ControlCommandError("that command belongs in a task's ctl")
        }
        schedule()
    }

    /// Cancels and forgets a task (R32): transfer, data, file and row.
    func remove(_ id: Int64) throws(CatalogError) {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = table.entry(id) else { return }
        if entry.record.state == .downloading { engine.stop(id) }
        try catalog.delete(id)
        table.remove(id)
        appliedLimits[id] = nil
        unlink(state.partial(id))
        if entry.record.state == .completed { unlink(state.file(entry.record.name)) }
        log.daemon("task \(id) removed")
        waits.wake(id, "failed: task removed\n")
        schedule()
    }

    /// `mv` inside files/ (R40).
    func rename(_ id: Int64, to newName: String) throws(RenameError) {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = table.entry(id), entry.record.state == .completed else { throw .missing }
        if newName == entry.record.name { return }
        guard FileName.sanitize(newName) == newName else { throw .badName }
        guard !isNameTaken(newName) else { throw .exists }
        guard Glibc.rename(state.file(entry.record.name), state.file(newName)) == 0 else { throw .io(errno) }
        do {
            try commit(id, event: "renamed to \(newName)") { $0.name = newName }
        } catch {
            _ = Glibc.rename(state.file(newName), state.file(entry.record.name))
            throw .io(EIO)
        }
    }

    // MARK: - transitions (lock held)

    private func schedulable(_ entries: [TaskEntry]) -> [SchedulableTask] {
        entries.map {
            SchedulableTask(id: $0.id, state: $0.record.state, position: $0.record.position, startedAt: $0.startedAt)
        }
    }

    /// The one way a change reaches the task table: committed to the catalog
    /// first, with its log lines, then shown (R15).
    private func persist(_ record: TaskRecord, events: [String] = []) throws(CatalogError) {
        let stamped = events.map { EventRecord(taskID: record.taskID, at: Date(), message: $0) }
        try catalog.save([record], events: stamped)
        table.update(record.taskID) { $0.record = record }
    }

    /// `persist` for engine reports, which have nobody to throw to: a failure
    /// is logged and the change is not shown. Returns whether it was saved.
    @discardableResult
    private func persistReport(_ record: TaskRecord, events: [String] = []) -> Bool {
        do {
            try persist(record, events: events)
            return true
        } catch {
            log.daemon("task \(record.taskID): \(error.message)", level: .error)
            return false
        }
    }

    /// Commits a change to one task asked for by the user, then shows it.
    private func commit(_ id: Int64, event: String? = nil, _ change: (inout TaskRecord) -> Void) throws(ControlCommandError) {
        guard var record = table.entry(id)?.record else { throw ControlCommandError("task \(id) does not exist") }
        change(&record)
        do { try persist(record, events: event.map { [$0] } ?? []) }
        catch { throw ControlCommandError(error.message) }
    }

    private func transition(_ id: Int64, to next: TaskState, event: String,
                            _ change: (inout TaskRecord) -> Void = { _ in }) throws(ControlCommandError) {
        guard let current = table.entry(id)?.record.state else { throw ControlCommandError("task \(id) does not exist") }
        guard current.canTransition(to: next) else {
            throw ControlCommandError(TransitionError(from: current, to: next).message)
        }
        try commit(id, event: event) {
            $0.state = next
            change(&$0)
        }
    }

    /// Fills free slots and trims excess ones (R16, R31).
    private func schedule() {
        guard !shuttingDown, engine != nil else { return }
        // Only queued and running tasks matter to the plan (R16).
        let plan = Scheduler.plan(schedulable(table.inFlight()), maxActive: maxActive)
        for id in plan.demote { demote(id, why: "sent back to the waiting line (max-active)") }
        for id in plan.start { startTransfer(id) }
        applyLimits()
    }

    private func demote(_ id: Int64, why: String) {
        engine.stop(id)
        try? transition(id, to: .queued, event: why)
    }

    private func startTransfer(_ id: Int64) {
        guard let entry = table.entry(id) else { return }
        let serial = nextSerial
        nextSerial += 1
        do {
            try transition(id, to: .downloading, event: "attempt \(entry.record.attempts + 1) started") {
                $0.attempts += 1
                $0.retryAt = nil
                if $0.failuresWithoutData == 0 { $0.error = nil }
            }
        } catch {
            log.daemon("task \(id): \(error.message)", level: .error)
            return
        }
        let now = MonotonicClock.now()
        table.update(id) {
            $0.serial = serial
            $0.startedAt = now
        }
        let record = table.entry(id)!.record
        let stored = StoredProgress(offset: record.downloaded, total: record.total,
                                    etag: record.etag, lastModified: record.lastModified)
        if record.downloaded > 0 {
            log.task(id, TransferProtocol(url: record.url).resuming(from: record.downloaded,
                                                                    hasValidator: ResumeDecision.hasValidator(stored)))
        }
        // Its limit follows from `applyLimits`, which every caller runs next;
        // the engine handles the commands in order, before any byte arrives.
        appliedLimits[id] = nil
        engine.start(TransferRequest(id: id, url: record.url, headers: record.options.headers, stored: stored,
                                     partialPath: state.partial(id)),
                     serial: serial, live: entry.live)
    }

    /// Splits the global limit among running transfers (R31) and applies
    /// per-task limits (R30), sending only what changed.
    private func applyLimits() {
        let running = table.inFlight().filter { $0.record.state == .downloading }
        for entry in running {
            let limit = SpeedLimit.effective(task: entry.record.speedLimit, global: globalLimit, running: running.count)
            if appliedLimits[entry.id] != limit {
                appliedLimits[entry.id] = limit
                engine.setSpeedLimit(entry.id, bytesPerSecond: limit)
            }
        }
    }

    /// Re-queues retrying tasks whose back-off is over (R53).
    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        guard !shuttingDown else { return }
        let now = Date()
        var requeued = false
        for entry in table.inFlight() where entry.record.state == .retrying {
            if let at = entry.record.retryAt, at <= now {
                try? transition(entry.id, to: .queued, event: "back-off over")
                requeued = true
            }
        }
        if requeued { schedule() }
    }

    // MARK: - engine reports

    private func current(_ id: Int64, _ serial: UInt64) -> TaskEntry? {
        guard let entry = table.entry(id), entry.serial == serial else { return nil }
        return entry
    }

    func transferStarted(_ id: Int64, serial: UInt64, response: ResponseSummary, decision: ResumeDecision) {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = current(id, serial), entry.record.state == .downloading else { return }
        var record = entry.record
        var events: [String] = []
        let head = response.head
        switch decision {
        case .append(let total):
            if record.downloaded == 0 {
                record.etag = head.etag
                record.lastModified = head.lastModified
            }
            record.total = total ?? (record.downloaded == 0 ? nil : record.total)
            if record.downloaded > 0 {
                events.append(TransferProtocol(url: record.url).resumed(at: record.downloaded, status: head.status))
            }
        case .startOver(let total, let reason):
            record.downloaded = 0
            record.total = total
            record.etag = head.etag
            record.lastModified = head.lastModified
            events.append("starting over from zero: \(reason)")
        case .alreadyComplete(let total):
            record.total = total
            events.append("the server says every byte is already here (HTTP 416)")
        case .fail:
            return
        }
        record.contentType = response.contentType
        record.finalURL = response.effectiveURL
        if record.options.out == nil {
            let desired = FileName.resolve(out: nil, contentDisposition: response.contentDisposition,
                                           finalURL: response.effectiveURL)
            let name = FileName.unique(desired) { $0 != record.name && self.isNameTaken($0) }
            if name != record.name {
                events.append("name: \(name)")
                record.name = name
            }
        }
        persistReport(record, events: events)
    }

    func transferCheckpointed(_ id: Int64, serial: UInt64, bytes: Int64) {
        lock.lock()
        defer { lock.unlock() }
        guard var record = current(id, serial)?.record, record.state == .downloading else { return }
        record.downloaded = bytes
        persistReport(record)
    }

    func transferFinished(_ id: Int64, serial: UInt64, outcome: TransferOutcome) {
        lock.lock()
        defer { lock.unlock() }
        guard var record = current(id, serial)?.record else { return }
        switch outcome {
        case .stopped(let bytes):
            record.downloaded = bytes
            persistReport(record)
        case .restart(let reason):
            // The answer could not be used: ask again from zero. That attempt
            // brought no data, so it counts towards max-tries and backs off
            // like any other (R53): no server answer makes us loop.
            guard record.state == .downloading else { return }
            record.downloaded = 0
            record.total = nil
            record.etag = nil
            record.lastModified = nil
            unlink(state.partial(id))
            record.failuresWithoutData += 1
            let message = "starting over from zero: \(reason)"
            if record.failuresWithoutData >= retryPolicy.maxTries {
                record.error = "the server's answers could not be used (\(reason)) after \(record.failuresWithoutData) tries"
                saveAndShow(record, state: .failed, event: "\(message); failed: \(record.error!)")
                log.daemon("task \(id) failed: \(record.error!)", level: .warning)
                waits.wake(id, "failed: \(record.error!)\n")
            } else {
                let delay = retryPolicy.delay(retry: record.failuresWithoutData, retryAfter: nil,
                                              jitter: Double.random(in: 0..<1))
                record.retryAt = Date().addingTimeInterval(delay)
                record.error = "\(reason); starting over"
                saveAndShow(record, state: .retrying, event: "\(message), in \(Units.duration(delay))")
            }
        case .completed(let bytes, let total):
            guard record.state == .downloading else { return }
            record.downloaded = bytes
            record.total = total ?? bytes
            if let checksum = record.options.checksum {
                saveAndShow(record, state: .verifying, event: "verifying \(checksum.algorithm.rawValue)")
                verify(id, serial: serial, checksum: checksum)
            } else {
                complete(record)
            }
        case .failed(let failure, let bytes, let receivedData):
            guard record.state == .downloading else { return }
            record.downloaded = bytes
            record.failuresWithoutData = receivedData ? 0 : record.failuresWithoutData + 1
            record.error = failure.message
            switch retryPolicy.decide(failure, failuresWithoutData: record.failuresWithoutData) {
            case .retry:
                let delay = retryPolicy.delay(retry: max(1, record.failuresWithoutData),
                                              retryAfter: failure.retryAfter, jitter: Double.random(in: 0..<1))
                record.retryAt = Date().addingTimeInterval(delay)
                saveAndShow(record, state: .retrying, event: "\(failure.message); retrying in \(Units.duration(delay))")
            case .fail:
                var message = failure.message
                if case .writeError(let code, _) = failure {
                    message += code == ENOSPC ? "; free some space, then write resume to ctl"
                                              : "; check the disk, then write resume to ctl"
                }
                record.error = message
                saveAndShow(record, state: .failed, event: "failed: \(message)")
                log.daemon("task \(id) failed: \(message)", level: .warning)
                waits.wake(id, "failed: \(message)\n")
            }
        }
        schedule()
    }

    private func saveAndShow(_ record: TaskRecord, state next: TaskState, event: String) {
        var record = record
        record.state = next
        // When the disk is too full even for the catalog (R54), its last
        // committed row stays consistent (the transfer resumes from its
        // checkpoint after a remount), but a failure or retry is still shown:
        // otherwise the task would look stuck in `downloading` for good.
        if !persistReport(record, events: [event]) && (next == .failed || next == .retrying) {
            table.update(record.taskID) { $0.record = record }
        }
    }

    private func verify(_ id: Int64, serial: UInt64, checksum: Checksum) {
        let path = state.partial(id)
        DispatchQueue.global().async { [self] in
            let result = FileDigest.hex(of: path, algorithm: checksum.algorithm)
            lock.lock()
            defer { lock.unlock() }
            guard var record = current(id, serial)?.record, record.state == .verifying else { return }
            switch result {
            case .success(let hex) where hex == checksum.hex:
                log.task(id, "\(checksum.algorithm.rawValue) verified")
                complete(record)
            case .success(let hex):
                record.error = "checksum mismatch: expected \(checksum.algorithm.rawValue) \(checksum.hex), got \(hex)"
                record.downloaded = 0
                saveAndShow(record, state: .failed, event: record.error!)
                unlink(path)
                waits.wake(id, "failed: \(record.error!)\n")
            case .failure(let failure):
                record.error = failure.message
                saveAndShow(record, state: .failed, event: failure.message)
                waits.wake(id, "failed: \(failure.message)\n")
            }
            schedule()
        }
    }

    /// Moves the whole file into files/ (R42, R43) and marks it completed.
    private func complete(_ record: TaskRecord) {
        var record = record
        let id = record.taskID
        if access(state.file(record.name), F_OK) == 0 {
            record.name = FileName.unique(record.name) { $0 != record.name ? self.isNameTaken($0) : true }
        }
        let target = state.file(record.name)
        guard Glibc.rename(state.partial(id), target) == 0 else {
            let message = "could not move the finished file: \(String(cString: strerror(errno)))"
            record.error = message
            saveAndShow(record, state: .failed, event: message)
            waits.wake(id, "failed: \(message)\n")
            return
        }
        let modified = record.lastModified.flatMap(HeaderValue.httpDate) ?? Date()
        var times = [timespec(tv_sec: Int(modified.timeIntervalSince1970), tv_nsec: 0),
                     timespec(tv_sec: Int(modified.timeIntervalSince1970), tv_nsec: 0)]
        utimensat(AT_FDCWD, target, &times, 0)
        chmod(target, 0o444)
        record.completedAt = Date()
        record.error = nil
        record.failuresWithoutData = 0
        saveAndShow(record, state: .completed, event: "completed: \(record.name)")
        log.daemon("task \(id) completed: \(record.name)")
        waits.wake(id, "completed\n")
        hooks?.run(id: id, name: record.name, path: target, url: record.url)
    }
}
