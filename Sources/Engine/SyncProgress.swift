import DownloadFSCore
import Foundation

/// The checkpoints of one task's download, shared between the engine thread
/// (which writes, asks for checkpoints and may wait for one to end) and the
/// task's checkpointer lane (which syncs and reports). One condition guards
/// it; it is touched once per written block, never contended for long.
///
/// A fall back to one connection from zero (R18) starts a new generation:
/// a checkpoint whose snapshot was taken before it is not reported, and the
/// check and the report happen under the same lock as the fall back's own
/// report, so the loop never sees old ranges after the start-over.
final class SyncProgress: @unchecked Sendable {
    private let condition = NSCondition()
    private var running = 0
    /// The ranges written to the data file (not only staged) in this generation.
    private var written: ByteRanges
    /// The ranges of the last checkpoint reported (the held ranges at start).
    private var reported: ByteRanges
    private var generation = 0
    private var failedErrno: Int32?
    /// What the page cache was told to let go of the durable bytes.
    private var cache = WrittenCacheRelease()
    /// The engine paused a transfer until a checkpoint ends: wake it then.
    private var holding = false
    private let wake: @Sendable () -> Void

    init(held: ByteRanges, wake: @escaping @Sendable () -> Void) {
        written = held
        reported = held
        self.wake = wake
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// A checkpoint is under way.
    var inFlight: Bool { locked { running != 0 } }
    /// The ranges of the last checkpoint reported.
    var committed: ByteRanges { locked { reported } }
    /// A checkpoint is under way and `written` bytes are more than `limit`
    /// ahead of the last one reported: the network outruns the disk. One
    /// lock, as it is asked for each piece curl hands over.
    func lags(written: Int64, by limit: Int64) -> Bool {
        locked { running != 0 && written - reported.count >= limit }
    }
    /// The errno of the first sync of this download that failed, if any.
    var failure: Int32? { locked { failedErrno } }

    /// The engine wrote (pwrite) bytes: `ranges` is all the data file holds.
    func wrote(_ ranges: ByteRanges) { locked { written = ranges } }

    /// What a checkpoint covers: the ranges written when it starts, in a generation.
    struct Snapshot: Sendable {
        let generation: Int
        let ranges: ByteRanges
    }

    /// What a checkpoint starting now covers.
    func snapshot() -> Snapshot { locked { Snapshot(generation: generation, ranges: written) } }

    func started() { locked { running += 1 } }

    /// The ranges a checkpoint that synced `snapshot` makes clean and the
    /// page cache may drop, `readerIdle` seconds after a reader last read
    /// (`WrittenCacheRelease`).
    func releasable(after snapshot: Snapshot, readerIdle: Double) -> [Range<Int64>] {
        locked { cache.afterCheckpoint(durable: snapshot.ranges, readerIdle: readerIdle) }
    }

    /// A checkpoint synced `snapshot`: its ranges become the committed ranges and `report` runs, under the lock, unless a sync failed before
    /// or a fall back started a new generation since.
    func ended(committed snapshot: Snapshot, report: () -> Void) {
        finish {
            guard failedErrno == nil, snapshot.generation == generation else { return }
            reported = snapshot.ranges
            report()
        }
    }

    /// A checkpoint's sync failed: nothing after the last ranges reported is
    /// trusted (the kernel may have dropped the pages, R51), and the engine
    /// ends the download at its next tick.
    func ended(failure: Int32) {
        finish { if failedErrno == nil { failedErrno = failure } }
    }

    private func finish(_ body: () -> Void) {
        let wakeEngine = locked { () -> Bool in
            body()
            running -= 1
            condition.broadcast()
            defer { holding = false }
            return holding
        }
        if wakeEngine { wake() }
    }

    /// Everything written is forgotten (a fall back to one connection from
    /// zero): a new generation, and `report` tells the loop, under the lock.
    func restart(report: () -> Void) {
        locked {
            generation += 1
            written = ByteRanges()
            reported = ByteRanges()
            report()
        }
    }

    /// The engine holds a transfer until a checkpoint ends; `ended` wakes it.
    func hold() { locked { holding = true } }

    /// Blocks until no checkpoint is under way (true) or `timeout` seconds pass (false).
    func waitForEnd(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return locked {
            while running != 0 {
                if !condition.wait(until: deadline) { return running == 0 }
            }
            return true
        }
    }
}
