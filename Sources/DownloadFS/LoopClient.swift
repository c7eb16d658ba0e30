import Catalog
import DownloadFSCore
import Dispatch
import Engine
import Synchronization

/// The loop's front door: what FUSE threads, the engine, the checkpointer
/// and the workers call. Each call puts a message in the loop's inbox; a
/// user's request then waits — outside any lock — for the loop to commit
/// and answer (R15). Reports never wait.
final class LoopClient: EngineDelegate, Sendable {
    private let inbox = Inbox<LoopMessage>()
    /// Signalled when the inbox was empty (a wake-up takes every message there).
    let wakeUp = DispatchSemaphore(value: 0)

    func send(_ message: LoopMessage) {
        let wasEmpty = inbox.put(message)
        // A wake-up owed (below) is paid by this one.
        let owed = wakeUpOwed.exchange(false, ordering: .relaxed)
        if wasEmpty || owed { wakeUp.signal() }
    }

    /// A wake-up owed for reports the engine thread made during its pass.
    private let wakeUpOwed = Atomic<Bool>(false)

    /// A report from the engine thread that frees nothing and nobody waits
    /// for (a response head, a line for the log): the loop is woken at the
    /// end of the engine's pass (`passEnded`), or by the next message sent
    /// before then. A small file's head and its last byte (`syncing`, which
    /// frees a slot and goes at once) then make one turn, not two.
    private func sendAfterPass(_ message: LoopMessage) {
        if inbox.put(message) { wakeUpOwed.store(true, ordering: .relaxed) }
    }

    /// Every message sent since the last call (the loop thread only).
    func takeAll() -> [LoopMessage] { inbox.takeAll() }

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

    /// Cancels a task and deletes its data (R32).
    func remove(_ id: Int64) throws(CatalogError) {
        let reply = LoopReply<Void, CatalogError>()
        send(.remove(id, reply))
        try reply.wait()
    }

    /// `mv` inside files/ of a task's file (R40).
    func rename(_ id: Int64, to newName: String) throws(RenameError) {
        let reply = LoopReply<Void, RenameError>()
        send(.rename(id, newName, reply))
        try reply.wait()
    }

    /// `mv` inside files/ of a file no task has (R34), or of a folder (R35).
    func renameFile(_ name: String, to newName: String, isFolder: Bool = false) throws(RenameError) {
        let reply = LoopReply<Void, RenameError>()
        send(.renameFile(name, newName, isFolder: isFolder, reply))
        try reply.wait()
    }

    /// `mkdir` inside files/ (R35).
    func makeFolder(_ path: String) throws(RenameError) {
        let reply = LoopReply<Void, RenameError>()
        send(.makeFolder(path, reply))
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

    // MARK: - engine reports (engine thread, checkpointer): hand off only

    func transferStarted(_ id: Int64, serial: UInt64, response: ResponseSummary, decision: ResumeDecision) {
        sendAfterPass(.event(id, .responded(serial: serial, response: response, decision: decision, name: nil)))
    }

    func transferCheckpointed(_ id: Int64, serial: UInt64, ranges: ByteRanges) {
        send(.event(id, .checkpointed(serial: serial, ranges: ranges)))
    }

    func transferSyncing(_ id: Int64, serial: UInt64) {
        send(.event(id, .syncing(serial: serial)))
    }

    func transferFinished(_ id: Int64, serial: UInt64, outcome: TransferOutcome) {
        send(.event(id, .finished(serial: serial, outcome: outcome)))
    }

    func transferDroppedMirror(_ id: Int64, serial: UInt64, url: String, reason: String) {
        sendAfterPass(.event(id, .mirrorDropped(serial: serial, url: url, reason: reason)))
    }

    func transferNoted(_ id: Int64, serial: UInt64, line: String) {
        sendAfterPass(.event(id, .noted(serial: serial, line: line)))
    }

    func passEnded() {
        if wakeUpOwed.exchange(false, ordering: .relaxed) { wakeUp.signal() }
    }
}
