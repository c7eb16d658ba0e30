import Foundation

/// Batches passed from one producer thread to one consumer, at most
/// `capacity` waiting: the producer blocks when the consumer lags, so memory
/// stays a few batches whatever the total. `finish` ends the stream (with the
/// producer's error, if any); `cancel` tells the producer to stop at its next
/// `put`, which then returns false.
final class HandOff<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [[Element]] = []
    private var finished = false
    private var cancelled = false
    private(set) var error: Error?
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Hands `batch` over; false once the consumer cancelled.
    func put(_ batch: [Element]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        waiting.append(batch)
        condition.broadcast()
        return true
    }

    /// The producer is done; `error` is why it stopped early.
    func finish(_ error: Error?) {
        condition.lock()
        defer { condition.unlock() }
        self.error = error
        finished = true
        condition.broadcast()
    }

    /// The next batch, or nil once the producer finished and all are taken.
    func take() -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while waiting.isEmpty && !finished { condition.wait() }
        guard !waiting.isEmpty else { return nil }
        condition.broadcast()
        return waiting.removeFirst()
    }

    /// The consumer stops taking; waits until the producer has finished.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        waiting.removeAll()
        condition.broadcast()
        while !finished { condition.wait() }
    }
}
