import DownloadFSCore

/// Receives what happens to transfers. Called on the engine thread (started),
/// a checkpointer lane (checkpointed, finished) or the group flusher's thread
/// (a whole file's finished) — never two at once for one transfer, and in
/// order per transfer. Must not block: hand slow work
/// (SQLite, renames) to a queue of your own.
///
/// `serial` identifies the attempt; a report for an attempt that is no longer
/// the task's current one must be ignored.
public protocol EngineDelegate: AnyObject, Sendable {
    /// The first answer of an attempt was accepted (and again after a fall
    /// back to one connection from zero, with `decision` `.startOver`).
    func transferStarted(_ id: Int64, serial: UInt64, response: ResponseSummary, decision: ResumeDecision)
    /// `ranges` (all the task holds) are flushed to disk (R51): they may be committed.
    func transferCheckpointed(_ id: Int64, serial: UInt64, ranges: ByteRanges)
    /// Every byte is in; the final flush (R51) comes next, then `transferFinished`.
    func transferSyncing(_ id: Int64, serial: UInt64)
    func transferFinished(_ id: Int64, serial: UInt64, outcome: TransferOutcome)
    /// Mirror `url` of the task failed for good (R19: 4xx, another total,
    /// another strong ETag than the first answer) and is no longer used;
    /// `reason` is for the task log.
    func transferDroppedMirror(_ id: Int64, serial: UInt64, url: String, reason: String)
    /// A line for the task log about how the attempt went (the endgame).
    func transferNoted(_ id: Int64, serial: UInt64, line: String)
    /// The engine thread ends a pass over its transfers and is about to
    /// wait: reports it made during the pass may be delivered together
    /// from here on, rather than one by one as they were made.
    func passEnded()
}
