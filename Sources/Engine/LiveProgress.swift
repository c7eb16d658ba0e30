import DownloadFSCore
import Foundation
import Synchronization

/// The moving numbers of one task, shared between the engine thread (writer)
/// and FUSE threads (readers) without touching SQLite or the engine.
///
/// Atomics, so a FUSE read of the growing data file or a `cat status` never
/// waits for the engine; the speed window is sampled a few times a second
/// under a small lock.
public final class LiveProgress: Sendable {
    /// The bytes from 0 with no hole written so far (may be ahead of the
    /// checkpoint): what a reader of the unfinished file may see.
    public let prefix = Atomic<Int64>(0)
    /// Every byte written so far, holes between segments aside (`downloaded`).
    public let received = Atomic<Int64>(0)
    /// Transfers the task has open now (the `connections` status key).
    public let connections = Atomic<Int>(0)
    private let window = Mutex(SpeedWindow())

    public init(_ ranges: ByteRanges = ByteRanges()) {
        show(ranges)
    }

    /// Shows what the task holds now.
    public func show(_ ranges: ByteRanges) {
        prefix.store(ranges.prefixEnd, ordering: .releasing)
        received.store(ranges.count, ordering: .releasing)
    }

    public var readable: Int64 { prefix.load(ordering: .acquiring) }
    public var bytes: Int64 { received.load(ordering: .acquiring) }

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
