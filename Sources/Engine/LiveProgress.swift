import DownloadFSCore
import Foundation
import Synchronization

/// The moving numbers of one task, shared between the engine thread (writer)
/// and FUSE threads (readers) without touching SQLite or the engine.
///
/// `written` is an atomic so a FUSE read of the growing data file never waits
/// for the engine; the speed window is sampled a few times a second under a
/// small lock.
public final class LiveProgress: Sendable {
    /// Bytes written to the partial file so far (may be ahead of the checkpoint).
    public let written = Atomic<Int64>(0)
    private let window = Mutex(SpeedWindow())

    public init(written: Int64 = 0) {
        self.written.store(written, ordering: .relaxed)
    }

    public var bytes: Int64 { written.load(ordering: .acquiring) }

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
