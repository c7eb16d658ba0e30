import DownloadFSCore
import Foundation
import Synchronization

/// The moving numbers of one task, shared between the engine thread (writer)
/// and FUSE threads (readers) without touching SQLite or the engine, and the
/// readers waiting for bytes the task does not hold yet (R23).
///
/// The byte ranges written and the waiting readers sit under one small
/// lock, taken once per write of the engine and held for a copy of the
/// ranges (what `status` reads of them is O(1)); the speed window is sampled
/// a few times a second.
public final class LiveProgress: Sendable {
    /// Transfers the task has open now (the `connections` status key).
    public let connections = Atomic<Int>(0)
    /// How many readers wait for bytes, mirrored out of the lock because
    /// connections look at it for every piece they receive: while any
    /// waits, they write each piece at once instead of a block at a time.
    public let readersWaiting = Atomic<Int>(0)
    private let window = Mutex(SpeedWindow())
    private let held: Mutex<Held>

    /// What a waiting reader is told.
    public enum ReadOutcome: Sendable {
        /// Look again: the bytes are written, or the task changed (completed).
        case ready
        /// The bytes will not come (the task failed or is gone).
        case failed
    }

    public typealias Reader = @Sendable (ReadOutcome) -> Void

    private struct Waiter {
        /// nil: until the task tells its readers (`release`).
        let range: Range<Int64>?
        let reader: Reader
    }

    private struct Held {
        /// Every byte written so far (may be ahead of the checkpoint).
        var ranges: ByteRanges
        /// Changes whenever the data file is cut or replaced (a start-over):
        /// bytes read under an older generation may be another version's.
        var generation: UInt64 = 0
        var nextToken: UInt64 = 1
        var waiters: [UInt64: Waiter] = [:]
        /// When a reader last looked (`snapshot`, `wait`), on the monotonic clock.
        var lastRead = -Double.infinity
    }

    public init(_ ranges: ByteRanges = ByteRanges()) {
        held = Mutex(Held(ranges: ranges))
    }

    /// Shows what the task holds now; readers whose bytes are all there are woken.
    public func show(_ ranges: ByteRanges) {
        let ready = held.withLock { state -> [Reader] in
            state.ranges = ranges
            return take(from: &state) { $0.range.map(ranges.covers) ?? false }
        }
        Self.tell(ready, .ready)
    }

    /// The data file is about to be cut or replaced: nothing in it is the
    /// task's any more, and reads under the old generation must not be served.
    public func restart() {
        held.withLock {
            $0.generation &+= 1
            $0.ranges = ByteRanges()
        }
    }

    /// The ranges held and the file's generation, at one instant, for a
    /// reader: noted as its latest read (`lastRead`).
    public func snapshot() -> (generation: UInt64, ranges: ByteRanges) {
        let now = MonotonicClock.now()
        return held.withLock {
            $0.lastRead = now
            return ($0.generation, $0.ranges)
        }
    }

    /// When a reader last read or waited (monotonic seconds): a reading
    /// attempt's windows end once readers have gone (R23).
    public var lastRead: Double { held.withLock { $0.lastRead } }

    public var generation: UInt64 { held.withLock { $0.generation } }

    /// Calls `reader` (on another thread) once every byte of `range` is
    /// written, or the task tells its readers otherwise (`release`; only
    /// that for a nil range). At once if the bytes are there already.
    /// Returns a token for `cancel`.
    public func wait(for range: Range<Int64>?, _ reader: @escaping Reader) -> UInt64 {
        let now = MonotonicClock.now()
        let token = held.withLock { state -> UInt64? in
            state.lastRead = now
            if let range, state.ranges.covers(range) { return nil }
            let token = state.nextToken
            state.nextToken += 1
            state.waiters[token] = Waiter(range: range, reader: reader)
            readersWaiting.store(state.waiters.count, ordering: .relaxed)
            return token
        }
        guard let token else {
            Self.tell([reader], .ready)
            return 0
        }
        return token
    }

    /// Forgets a waiting reader (interrupted); false if it was already told.
    public func cancel(_ token: UInt64) -> Bool {
        held.withLock { state in
            defer { readersWaiting.store(state.waiters.count, ordering: .relaxed) }
            return state.waiters.removeValue(forKey: token) != nil
        }
    }

    /// The ranges readers wait for, for the engine to fetch first.
    public func pendingReads() -> [Range<Int64>] {
        held.withLock { state in state.waiters.values.compactMap(\.range).sorted { $0.lowerBound < $1.lowerBound } }
    }

    /// Tells every waiting reader `outcome`.
    public func release(_ outcome: ReadOutcome) {
        let all = held.withLock { take(from: &$0) { _ in true } }
        Self.tell(all, outcome)
    }

    /// Takes the readers `chosen` out of `state` (under the lock).
    private func take(from state: inout Held, where chosen: (Waiter) -> Bool) -> [Reader] {
        guard !state.waiters.isEmpty else { return [] }
        var readers: [Reader] = []
        for (token, waiter) in state.waiters where chosen(waiter) {
            state.waiters[token] = nil
            readers.append(waiter.reader)
        }
        readersWaiting.store(state.waiters.count, ordering: .relaxed)
        return readers
    }

    /// Readers are answered off the caller's thread: the engine's, which
    /// must not wait on a file read or a FUSE reply.
    private static func tell(_ readers: [Reader], _ outcome: ReadOutcome) {
        for reader in readers { DispatchQueue.global().async { reader(outcome) } }
    }

    /// Every range written, for a view (the `ranges` attribute): unlike
    /// `snapshot`, not a read, so a client polling it keeps neither a
    /// reading attempt's windows open (R23) nor the written pages cached
    /// (`WrittenCacheRelease`).
    public var ranges: ByteRanges { held.withLock { $0.ranges } }

    /// The bytes from 0 with no hole: what a reader may see of a file whose total is unknown.
    public var readable: Int64 { held.withLock { $0.ranges.prefixEnd } }
    /// Every byte written, holes between segments aside (`downloaded`).
    public var bytes: Int64 { held.withLock { $0.ranges.count } }

    func sample(at time: Double) {
        let total = bytes
        window.withLock { $0.record(total: total, at: time) }
    }

    public func bytesPerSecond(now: Double) -> Double {
        window.withLock { $0.bytesPerSecond(now: now) }
    }

    public func resetSpeed() {
        window.withLock { $0.reset() }
    }
}
