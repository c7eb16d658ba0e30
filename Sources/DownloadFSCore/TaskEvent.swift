/// Everything that can happen to one task; `TaskMachine` decides what each
/// event makes of it. Events that need facts only the daemon has (a unique
/// name, a serial, the files on disk) carry them, so the machine stays pure.
public enum TaskEvent: Sendable, Equatable {
    // MARK: the user (ctl, R30, R31; rm and mv, R32, R40)
    /// `pause`, `pause-all`: `log` is the line to write ("paused (pause-all)").
    case pause(log: String)
    /// `resume`, `resume-all`.
    case resume(log: String)
    /// Back to the waiting line before a `start` (R30) or for any other reason.
    case requeue(log: String)
    /// `move N` (R30) at `position`; `log` nil for a task stepping back to
    /// make room (its place relative to the others is unchanged).
    case moved(position: Int64, log: String?)
    case limit(bytesPerSecond: Int64)
    /// `split N` (R18, R30): connections for this task from its next claim on.
    case split(Int)
    /// `mv` in files/: the file is already renamed on disk.
    case renamed(to: String)
    /// `rm -r queue/<id>`, `rm files/<name>`.
    case remove
    /// `forget` (R34): a completed task goes, its file stays as a plain file.
    case forget

    // MARK: scheduling and timers (R16, R53)
    /// A slot: start attempt `serial` now (`at`: monotonic seconds).
    case begin(serial: UInt64, at: Double)
    /// Over `max-active`, or a `start` needed the slot: back to `queued`.
    case demote(log: String)
    /// The retry timer found the back-off over.
    case backoffOver
    /// A reader waits for bytes the task does not hold (R23); `serial`
    /// names a reading attempt, should one have to start.
    case read(serial: UInt64)

    // MARK: the engine, about attempt `serial`
    /// The response was judged (R52); `name` is the unique name the response
    /// suggests (R17), nil to keep the current one.
    case responded(serial: UInt64, response: ResponseSummary, decision: ResumeDecision, name: String?)
    /// `ranges` are on disk (fdatasync'ed): they may be committed (R51).
    /// Everything the task holds, not only what this attempt added.
    case checkpointed(serial: UInt64, ranges: ByteRanges)
    /// Every byte of the file is in; the engine makes it durable (R51) and
    /// then reports the attempt `finished`.
    case syncing(serial: UInt64)
    case finished(serial: UInt64, outcome: TransferOutcome)
    /// The engine gave up on one of the task's URLs (R19: a 4xx, another
    /// total, another strong ETag than the first answer); `reason` says which.
    case mirrorDropped(serial: UInt64, url: String, reason: String)
    /// A line for the task log about how an attempt went (the endgame, R18).
    case noted(serial: UInt64, line: String)
    /// The checksum was computed (R56).
    case verified(serial: UInt64, result: VerifyResult)
    /// The whole file was moved into STATE/files (R42, R43).
    case finalized(serial: UInt64, result: FinalizeResult)

    // MARK: the mount (R50)
    /// What is on disk for this task when the catalog is loaded.
    case reconcile(DataOnDisk)
}
