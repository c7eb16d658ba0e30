import Foundation

/// What requests changed in the task set and what is left to do about it:
/// the catalog rows and log lines to commit together, then — only once they
/// are committed (R15) — the tasks to show, the effects to carry out, the
/// replies to give, the event lines (R24) and the engine's new limits and
/// splits. It also remembers what the requests found, so
/// `TaskSet.undo(_:)` can put everything back when the commit fails.
public struct TaskSetTurn: Sendable {
    /// New tasks, in the order they were added.
    public internal(set) var inserted: [Int64] = []
    private var insertedIDs: Set<Int64> = []
    /// Changed tasks whose stored columns differ (not new ones).
    public internal(set) var updated: Set<Int64> = []
    /// Deleted tasks (R32, R34) that were stored before this turn.
    public internal(set) var deleted: Set<Int64> = []
    /// Task and daemon log lines, committed with the rows.
    public internal(set) var log: [TaskLogLine] = []
    /// Effects to carry out once committed, each with its task as it was
    /// after the event.
    public private(set) var effects: [(id: Int64, effect: TaskEffect, task: DownloadTask)] = []
    /// How many of `effects` are `startTransfer`s (`takeStartsBeforeCommit`
    /// runs at every wake-up over reports kept for up to 2 ms: it looks
    /// through them only when one is there).
    private var startCount = 0
    /// Replies to writers, by token, given once committed.
    public internal(set) var replies: [(token: UInt64, reply: TaskSetReply)] = []
    /// Lines for `MOUNT/events`, in the order the changes were made.
    public internal(set) var changes: [TaskChange] = []
    /// `mv` in files/: renames to make on disk before committing (R40).
    public internal(set) var renames: [(from: String, to: String)] = []
    /// `mkdir` in files/: folders to make on disk before committing (R35).
    public internal(set) var folders: [String] = []
    /// Per-transfer speed limits that changed (R30, R31).
    public internal(set) var speedLimits: [(id: Int64, bytesPerSecond: Int64)] = []
    /// Running tasks whose connection count changed (R18, R31).
    public internal(set) var splits: [(id: Int64, split: SplitPolicy)] = []
    /// Work was left for the next turn (a long `forget-completed`): the
    /// loop takes another turn at once instead of waiting for a message.
    public internal(set) var moreToDo = false

    /// Each touched task as it was before the turn (nil: it is new).
    var originals: [Int64: DownloadTask?] = [:]
    /// The set's small state before the turn's first request.
    var booksBefore: TaskSet.Books?
    /// Name hints before the turn changed them (nil: there was none).
    var hintsBefore: [String: Int?] = [:]

    public init() {}

    /// The tasks this turn changed, added or removed: what to show.
    public var touched: Dictionary<Int64, DownloadTask?>.Keys { originals.keys }

    /// Each of them as it was before the turn (nil: new).
    public var before: [Int64: DownloadTask?] { originals }

    /// Nothing to commit, show or carry out.
    public var isEmpty: Bool {
        originals.isEmpty && log.isEmpty && effects.isEmpty && replies.isEmpty && speedLimits.isEmpty && splits.isEmpty
    }

    /// Takes in a later turn (a request handled on its own so it could be
    /// undone alone): this turn's originals, the earlier ones, win.
    public mutating func absorb(_ later: TaskSetTurn) {
        // The usual case, a turn's first request: taken whole, not entry by
        // entry (an add of 1,000 URLs re-inserted each of its tasks here,
        // before any transfer could start).
        if isBlank { return self = later }
        for id in later.inserted { insert(id) }
        for id in later.deleted { delete(id) }
        updated.formUnion(later.updated.subtracting(insertedIDs))
        log += later.log
        effects += later.effects
        startCount += later.startCount
        replies += later.replies
        changes += later.changes
        renames += later.renames
        folders += later.folders
        speedLimits += later.speedLimits
        splits += later.splits
        moreToDo = moreToDo || later.moreToDo
        for (id, old) in later.originals where originals[id] == nil { originals[id] = old }
        if booksBefore == nil { booksBefore = later.booksBefore }
        for (key, old) in later.hintsBefore where hintsBefore[key] == nil { hintsBefore[key] = old }
    }

    /// Nothing at all is recorded yet: every stored property above is at its
    /// initial value (`insertedIDs` follows `inserted`). A property added to
    /// the turn must be added here, or `absorb` would drop what it held.
    private var isBlank: Bool {
        isEmpty && inserted.isEmpty && deleted.isEmpty && updated.isEmpty && changes.isEmpty && renames.isEmpty
            && folders.isEmpty && startCount == 0 && !moreToDo && booksBefore == nil && hintsBefore.isEmpty
    }

    /// Marks tasks to save again (their last turn could not be committed).
    public mutating func saveAgain(_ ids: Set<Int64>) {
        updated.formUnion(ids.subtracting(insertedIDs))
    }

    /// Takes out the starts that may be carried out before the turn is
    /// committed, so that a slot a report freed is filled without waiting
    /// for the disk: a transfer started before its `downloading` is
    /// committed shows nothing (its state is shown once committed, R15), and
    /// a crash before the commit leaves the task `queued`, nothing of what
    /// it wrote trusted (R51). Only a task with no other effect in the turn
    /// (one task's effects keep their order), and only when the turn changes
    /// no limit or split: those reach the engine after the commit, and a
    /// transfer must not run before its limit does (R30, R31).
    public mutating func takeStartsBeforeCommit() -> [(id: Int64, effect: TaskEffect, task: DownloadTask)] {
        guard startCount > 0, speedLimits.isEmpty, splits.isEmpty else { return [] }
        var effectsOf: [Int64: Int] = [:]
        for entry in effects { effectsOf[entry.id, default: 0] += 1 }
        var early: [(id: Int64, effect: TaskEffect, task: DownloadTask)] = []
        effects.removeAll { entry in
            guard case .startTransfer = entry.effect, effectsOf[entry.id] == 1 else { return false }
            early.append(entry)
            return true
        }
        startCount -= early.count
        return early
    }

    /// An effect to carry out once committed, with its task as it was after the event.
    mutating func add(_ effect: TaskEffect, of task: DownloadTask) {
        if case .startTransfer = effect { startCount += 1 }
        effects.append((task.taskID, effect, task))
    }

    mutating func remember(_ old: DownloadTask) {
        if originals[old.taskID] == nil { originals[old.taskID] = .some(old) }
    }

    mutating func insert(_ task: DownloadTask) {
        if originals[task.taskID] == nil { originals[task.taskID] = .some(nil) }
        insert(task.taskID)
    }

    private mutating func insert(_ id: Int64) {
        inserted.append(id)
        insertedIDs.insert(id)
    }

    mutating func update(_ id: Int64) {
        if !insertedIDs.contains(id) { updated.insert(id) }
    }

    mutating func delete(_ id: Int64) {
        updated.remove(id)
        if insertedIDs.remove(id) != nil {
            inserted.removeAll { $0 == id }
        } else {
            deleted.insert(id)
        }
    }

    mutating func reply(_ token: UInt64, _ reply: TaskSetReply) {
        replies.append((token, reply))
    }
}
