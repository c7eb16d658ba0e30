import Foundation

/// The task state machine: `(task, event) -> (task, log lines, effects)`,
/// pure (the clock and the jitter are passed in).
///
/// Every change to a task is decided here, and every change of its state goes
/// through `TaskState`'s transition table (`move`), so a `ctl` command, an
/// engine report and a mount all obey the same rules. Reports about an
/// attempt that is no longer the task's current one change nothing: they
/// come from a transfer that was stopped or replaced.
public struct TaskMachine: Sendable {
    public var retry: RetryPolicy

    public init(retry: RetryPolicy) { self.retry = retry }

    /// Applies `event` to `task` at `now`; `jitter` in 0..<1 spreads back-offs.
    /// Throws the sentence for the user when the event does not apply.
    public func apply(_ event: TaskEvent, to task: DownloadTask, now: Date,
                      jitter: Double = 0.5) throws(TaskMachineError) -> TaskTransition {
        var step = TaskTransition(task: task)
        switch event {
        case .pause(let line): try pause(&step, log: line)
        case .resume(let line): try resume(&step, log: line)
        case .requeue(let line): try requeue(&step, log: line)
        case .limit(let rate):
            step.task.speedLimit = rate
            step.log.append(rate > 0 ? "speed limit \(Units.speed(Double(rate)))" : "speed limit removed")
        case .split(let connections):
            // Taken in every state, like `limit`: a waiting or finished task
            // keeps it for when it (or a read, R23) next opens connections.
            step.task.split = connections
            step.log.append("split: \(connections) connection\(connections == 1 ? "" : "s")")
        case .moved(let position, let line):
            guard task.state.standsInLine else {
                throw TaskMachineError("cannot move a \(task.state.rawValue) task (only a queued or paused one has a place in the line)")
            }
            step.task.position = position
            if let line { step.log.append(line) }
        case .forget:
            guard task.state == .completed else {
                throw TaskMachineError("cannot forget task \(task.taskID): it is \(task.state.rawValue), and only a completed task can be forgotten (rm -r removes any task with its data)")
            }
            step.removed = true
            step.effects.append(.keepFile(name: task.name))
            step.daemonLog.append("task \(task.taskID) forgotten; its file stays in files/ as \(task.name)")
        case .renamed(let name):
            // A completed task's file (R40), or the place an unfinished one's
            // goes to when its folder moves (R35); never while it moves in.
            guard !task.isMovingIntoFiles else {
                throw TaskMachineError("task \(task.taskID)'s file is being moved into files/ right now")
            }
            step.task.name = name
            step.log.append("renamed to \(name)")
        case .remove: remove(&step)
        case .begin(let serial, let at): try begin(&step, serial: serial, at: at)
        case .demote(let line):
            guard task.state == .downloading, task.stopping == nil else {
                throw TaskMachineError("cannot send a \(task.state.rawValue) task back to the waiting line")
            }
            try move(&step, to: .queued, log: line)
            // Its transfer stays the attempt's until the engine reports the
            // stop, with the count it reached (R51).
            if task.transferring { step.effects.append(.stopTransfer(serial: task.serial)) }
        case .backoffOver:
            guard task.state == .retrying else { throw TaskMachineError("task \(task.taskID) is not waiting to retry") }
            step.task.retryAt = nil
            try move(&step, to: .queued, log: "back-off over")
        case .read(let serial):
            read(&step, serial: serial)
        case .responded(let serial, let response, let decision, let name):
            guard isCurrent(task, serial) else { return step }
            responded(&step, response: response, decision: decision, name: name)
        case .syncing(let serial):
            guard isCurrent(task, serial), task.phase == .transferring else { return step }
            // Every byte is in: the task gives its slot to the next one
            // while its file waits for its group's flush (R16, R51).
            try move(&step, to: .verifying)
            step.task.phase = .syncing
        case .checkpointed(let serial, let ranges):
            guard isCurrent(task, serial) || task.reading == serial else { return step }
            step.task.ranges = ranges
        case .mirrorDropped(let serial, let url, let reason):
            // Only the task's own URLs, each once: nothing the engine reports grows the row without bound.
            guard isCurrent(task, serial), task.url == url || task.mirrors.contains(url),
                  !task.droppedMirrors.contains(url) else { return step }
            step.task.droppedMirrors.append(url)
            step.log.append("mirror \(URLNormalizer.maskingPassword(url)) dropped: \(reason)")
        case .noted(let serial, let line):
            guard isCurrent(task, serial) else { return step }
            step.log.append(line)
        case .finished(let serial, let outcome):
            if task.reading == serial { readingEnded(&step, outcome: outcome) }
            guard isCurrent(task, serial) else { return step }
            try finished(&step, outcome: outcome, now: now, jitter: jitter)
        case .verified(let serial, let result):
            guard task.serial == serial, task.state == .verifying else { return step }
            try verified(&step, result: result)
        case .finalized(let serial, let result):
            guard task.serial == serial, task.phase == .movingIn else { return step }
            step.task.phase = .idle
            try finalized(&step, result: result, now: now)
        case .reconcile(let disk):
            reconcile(&step, disk: disk, now: now)
        }
        return step
    }

    /// A report about attempt `serial` whose transfer is still running.
    private func isCurrent(_ task: DownloadTask, _ serial: UInt64) -> Bool {
        task.serial == serial && task.transferring
    }

    /// The one place a task's state changes: checked against the table (R15).
    private func move(_ step: inout TaskTransition, to next: TaskState, log line: String? = nil) throws(TaskMachineError) {
        guard step.task.state.canTransition(to: next) else {
            throw TaskMachineError(TransitionError(from: step.task.state, to: next).message)
        }
        step.task.state = next
        if let line { step.log.append(line) }
    }

    // MARK: - commands

    private func pause(_ step: inout TaskTransition, log line: String) throws(TaskMachineError) {
        let task = step.task
        switch task.state {
        case .paused:
            return
        case .queued, .retrying:
            step.task.retryAt = nil
            try move(&step, to: .paused, log: line)
        case .downloading where task.transferring:
            // Shown `paused` only once the engine has flushed the transfer and
            // reported its final count (R30, R51): see `finished`.
            guard task.stopping != .pause else { return }
            if task.stopping == nil { step.effects.append(.stopTransfer(serial: task.serial)) }
            step.task.phase = .stopping(.pause)
        case .downloading:
            throw TaskMachineError("cannot pause task \(task.taskID): its download is complete and being moved into files/")
        case .verifying, .completed, .failed:
            throw TaskMachineError("cannot pause a \(task.state.rawValue) task")
        }
    }

    private func resume(_ step: inout TaskTransition, log line: String) throws(TaskMachineError) {
        switch step.task.state {
        case .paused, .failed:
            let wasFailed = step.task.state == .failed
            step.task.failuresWithoutData = 0
            step.task.error = nil
            try move(&step, to: .queued, log: line)
            if wasFailed { retryDroppedMirrors(&step) }
        case .downloading where step.task.stopping == .pause:
            step.task.phase = .stopping(.requeue)
        case .queued, .downloading, .retrying, .verifying:
            return
        case .completed:
            throw TaskMachineError("task \(step.task.taskID) is already completed")
        }
    }

    private func requeue(_ step: inout TaskTransition, log line: String) throws(TaskMachineError) {
        guard step.task.state != .queued else { return }
        guard [.paused, .failed, .retrying].contains(step.task.state) else {
            throw TaskMachineError(TransitionError(from: step.task.state, to: .queued).message)
        }
        let wasFailed = step.task.state == .failed
        step.task.error = nil
        step.task.failuresWithoutData = 0
        step.task.retryAt = nil
        try move(&step, to: .queued, log: line)
        if wasFailed { retryDroppedMirrors(&step) }
    }

    /// A failed task the user starts again tries every URL again (R19): a
    /// mirror dropped for a 404 may have the file by now, and a task that
    /// failed because no URL was left would otherwise have none to ask.
    private func retryDroppedMirrors(_ step: inout TaskTransition) {
        guard !step.task.droppedMirrors.isEmpty else { return }
        let count = step.task.droppedMirrors.count
        step.task.droppedMirrors = []
        step.log.append("\(count) dropped URL\(count == 1 ? "" : "s") will be tried again")
    }

    private func remove(_ step: inout TaskTransition) {
        let task = step.task
        step.removed = true
        if task.transferring || task.reading != nil { step.effects.append(.stopTransfer(serial: task.serial)) }
        step.effects.append(.failReads)
        step.effects.append(.deletePartial)
        if task.state == .completed { step.effects.append(.deleteFinished(name: task.name)) }
        step.effects.append(.wake("failed: task removed\n"))
        step.daemonLog.append("task \(task.taskID) removed")
    }

    // MARK: - scheduling

    private func begin(_ step: inout TaskTransition, serial: UInt64, at: Double) throws(TaskMachineError) {
        guard step.task.state == .queued else {
            throw TaskMachineError("cannot start a \(step.task.state.rawValue) task (only a queued one)")
        }
        let task = step.task
        try move(&step, to: .downloading, log: "attempt \(task.attempts + 1) started")
        step.task.attempts += 1
        step.task.retryAt = nil
        if task.failuresWithoutData == 0 { step.task.error = nil }
        step.task.serial = serial
        step.task.phase = .transferring
        // The engine's start replaces a reading attempt; it serves the readers now.
        step.task.reading = nil
        step.task.startedAt = at
        if task.downloaded > 0 {
            step.log.append(TransferProtocol(url: task.url).resuming(
                held: task.ranges, hasValidator: ResumeDecision.hasValidator(task.stored)))
        }
        step.effects.append(.startTransfer(serial: serial, stored: step.task.stored))
    }

    // MARK: - readers (R23)

    /// A reader waits for bytes: the running attempt fetches them; a
    /// waiting or paused task gets a reading attempt that fetches only
    /// those and leaves its state as it is; a failed task's bytes will not
    /// come (EIO); a completed task's reader looks again.
    private func read(_ step: inout TaskTransition, serial: UInt64) {
        let task = step.task
        if task.transferring || task.reading != nil { return step.effects.append(.fetchReads) }
        switch task.state {
        case .queued, .paused, .retrying:
            // Without a total there is nothing to fetch ahead: the file grows (R23).
            guard task.total != nil else { return step.effects.append(.releaseReads) }
            step.task.reading = serial
            step.effects.append(.startReading(serial: serial, stored: task.stored))
        case .failed:
            step.effects.append(.failReads)
        case .completed:
            step.effects.append(.releaseReads)
        case .downloading, .verifying:
            return  // every byte is written; the move into files/ releases them
        }
    }

    /// A reading attempt ended: what it fetched is kept; if it failed (for
    /// good: a transient failure is waited out in the engine while readers
    /// wait), its readers get EIO (the task's own retries, if any, go on).
    private func readingEnded(_ step: inout TaskTransition, outcome: TransferOutcome) {
        step.task.reading = nil
        switch outcome {
        case .stopped(let ranges):
            step.task.ranges = ranges
        case .completed(let bytes, _):
            step.task.ranges = ByteRanges.prefix(bytes)
        case .failed(let failure, let ranges, _):
            step.task.ranges = ranges
            step.log.append("a read could not be served: \(failure.message)")
            step.effects.append(.failReads)
        case .restart(let reason):
            step.log.append("a read could not be served: \(reason)")
            step.effects.append(.failReads)
        }
    }

    // MARK: - engine reports

    private func responded(_ step: inout TaskTransition, response: ResponseSummary, decision: ResumeDecision, name: String?) {
        let head = response.head
        var validators = (etag: step.task.etag, lastModified: step.task.lastModified)
        switch decision {
        case .append(let total):
            if step.task.downloaded == 0 { validators = (head.etag, head.lastModified) }
            step.task.total = total ?? (step.task.downloaded == 0 ? nil : step.task.total)
            if step.task.downloaded > 0 {
                // The byte this answer starts at (one connection's range of
                // a segmented task, R18), not the count of bytes held.
                let offset = head.contentRange?.start ?? step.task.downloaded
                var line = TransferProtocol(url: step.task.url).resumed(at: offset, status: head.status)
                if step.task.ranges.ranges != [0..<step.task.downloaded] {
                    line += "; \(step.task.downloaded) bytes already here in \(step.task.ranges.ranges.count) pieces"
                }
                step.log.append(line)
            }
        case .startOver(let total, let reason):
            step.task.downloaded = 0
            step.task.total = total
            validators = (head.etag, head.lastModified)
            step.log.append("starting over from zero: \(reason)")
        case .alreadyComplete(let total):
            step.task.total = total
            step.log.append("the server says every byte is already here (HTTP 416)")
        case .fail:
            return
        }
        let remote = RemoteFacts(etag: validators.etag, lastModified: validators.lastModified,
                                 contentType: response.contentType, finalURL: response.effectiveURL)
        if remote != step.task.remote { step.task.remote = remote }
        if step.task.options.out == nil, let name, name != step.task.name {
            step.task.name = name
            step.log.append("name: \(name)")
        }
    }

    private func finished(_ step: inout TaskTransition, outcome: TransferOutcome, now: Date,
                          jitter: Double) throws(TaskMachineError) {
        let stopping = step.task.stopping
        step.task.phase = .idle
        switch outcome {
        case .stopped(let ranges):
            step.task.ranges = ranges
            try settleStop(&step, stopping)
        case .restart(let reason):
            // The answer could not be used: ask again from zero. The attempt
            // brought no data, so it counts towards max-tries and backs off
            // like any other (R53): no server answer makes us loop.
            step.task.downloaded = 0
            step.task.total = nil
            step.task.remote = RemoteFacts(etag: nil, lastModified: nil, contentType: step.task.contentType,
                                           finalURL: step.task.finalURL)
            step.task.failuresWithoutData += 1
            step.effects.append(.deletePartial)
            let line = "starting over from zero: \(reason)"
            if stopping != nil {
                step.log.append(line)
                return try settleStop(&step, stopping)
            }
            if step.task.failuresWithoutData >= retry.maxTries {
                try fail(&step, "the server's answers could not be used (\(reason)) after \(step.task.failuresWithoutData) tries",
                         line: line + "; ")
            } else {
                let delay = retry.delay(retry: step.task.failuresWithoutData, retryAfter: nil, jitter: jitter)
                step.task.retryAt = now.addingTimeInterval(delay)
                step.task.error = "\(reason); starting over"
                try move(&step, to: .retrying, log: "\(line), in \(Units.duration(delay))")
            }
        case .completed(let bytes, let total):
            step.task.downloaded = bytes
            step.task.total = total ?? bytes
            if let checksum = step.task.options.checksum {
                if step.task.state != .verifying { try move(&step, to: .verifying) }
                step.log.append("verifying \(checksum.algorithm.rawValue)")
                step.effects.append(.verify(serial: step.task.serial, checksum: checksum))
            } else {
                step.task.phase = .movingIn
                step.effects.append(.finalize(serial: step.task.serial, name: step.task.name))
            }
        case .failed(let failure, let ranges, let receivedData):
            step.task.ranges = ranges
            step.task.failuresWithoutData = receivedData ? 0 : step.task.failuresWithoutData + 1
            step.task.error = failure.message
            if stopping != nil {
                step.log.append(failure.message)
                return try settleStop(&step, stopping)
            }
            switch retry.decide(failure, failuresWithoutData: step.task.failuresWithoutData) {
            case .retry:
                let delay = retry.delay(retry: max(1, step.task.failuresWithoutData),
                                        retryAfter: failure.retryAfter, jitter: jitter)
                step.task.retryAt = now.addingTimeInterval(delay)
                try move(&step, to: .retrying, log: "\(failure.message); retrying in \(Units.duration(delay))")
            case .fail:
                var message = failure.message
                if case .writeError(let code, _) = failure {
                    message += failure.isDiskFull ? "; free some space, then write resume to ctl"
                        : TransferFailure.outOfDescriptors.contains(code) ? "; close files open in files/, then write resume to ctl"
                        : "; check the disk, then write resume to ctl"
                }
                try fail(&step, message)
            }
        }
    }

    /// A stopped transfer's task becomes what the stop was for.
    private func settleStop(_ step: inout TaskTransition, _ stopping: StopReason?) throws(TaskMachineError) {
        guard step.task.state == .downloading else { return }  // demoted, or shut down: count only
        switch stopping {
        case .pause?: try move(&step, to: .paused, log: "paused")
        case .requeue?: try move(&step, to: .queued, log: "resumed")
        case nil: return  // unmount: a remount carries on (R50)
        }
    }

    private func fail(_ step: inout TaskTransition, _ message: String, line prefix: String = "") throws(TaskMachineError) {
        step.task.error = message
        try move(&step, to: .failed, log: "\(prefix)failed: \(message)")
        step.daemonLog.append("task \(step.task.taskID) failed: \(message)")
        step.effects.append(.wake("failed: \(message)\n"))
        step.effects.append(.failReads)
    }

    private func verified(_ step: inout TaskTransition, result: VerifyResult) throws(TaskMachineError) {
        guard let checksum = step.task.options.checksum else { return }
        switch result {
        case .matched:
            step.log.append("\(checksum.algorithm.rawValue) verified")
            step.task.phase = .movingIn
            step.effects.append(.finalize(serial: step.task.serial, name: step.task.name))
        case .mismatched(let actual):
            step.task.downloaded = 0
            step.effects.append(.deletePartial)
            try fail(&step, "checksum mismatch: expected \(checksum.algorithm.rawValue) \(checksum.hex), got \(actual)")
        case .unreadable(let failure):
            try fail(&step, failure.message)
        }
    }

    private func finalized(_ step: inout TaskTransition, result: FinalizeResult, now: Date) throws(TaskMachineError) {
        switch result {
        case .moved(let name, let landed):
            step.task.name = name
            step.task.completedAt = landed
            step.task.error = nil
            step.task.failuresWithoutData = 0
            try move(&step, to: .completed, log: "completed: \(name)")
            step.daemonLog.append("task \(step.task.taskID) completed: \(name)")
            step.effects.append(.wake("completed\n"))
            step.effects.append(.releaseReads)
            step.effects.append(.runHook)
        case .failed(let reason):
            try fail(&step, "could not move the finished file: \(reason)")
        }
    }

    // MARK: - mount

    /// What a remount makes of a stored task (R50): running ones carry on,
    /// and the stored count is checked against the data on disk (R51).
    private func reconcile(_ step: inout TaskTransition, disk: DataOnDisk, now: Date) {
        let task = step.task
        if task.state == .completed {
            if disk.finishedSize == nil {
                step.task.downloaded = 0
                step.task.error = "the finished file is gone from the state dir; resume to download it again"
                try? move(&step, to: .failed, log: "finished file \(task.name) is missing; marked failed")
            }
            return
        }
        // A crash between moving a finished file and committing it?
        if disk.partialSize == nil, task.downloaded > 0, task.state.isRunning, let total = task.total,
           disk.finishedSize == total {
            step.task.downloaded = total
            step.task.completedAt = task.completedAt ?? now
            try? move(&step, to: .completed, log: "completed: \(task.name) (found in files/ at mount)")
            return
        }
        // The rule the engine applies again at each attempt's open (`DataFile.open`).
        if let correction = PartialDataCorrection.of(task.ranges, partialSize: disk.partialSize) {
            step.task.ranges = correction.ranges
            step.log.append(correction.line)
        }
        if task.state == .retrying, let at = task.retryAt, at > now,
           at.timeIntervalSince(now) <= RetryPolicy.retryAfterCapSeconds {
            // Its back-off (a server's Retry-After, R53) goes on across the
            // remount: `retryDue` queues it when it is over.
            return
        }
        if task.state.isRunning || task.state == .retrying {
            step.task.retryAt = nil
            try? move(&step, to: .queued)
        }
    }
}
