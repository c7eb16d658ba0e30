import Synchronization

/// Runs `done` once `tick` has been called `count` times: a `pause-all`
/// answers once every task it stops has settled.
final class Countdown: Sendable {
    private let left: Mutex<Int>
    private let done: @Sendable () -> Void

    init(_ count: Int, done: @escaping @Sendable () -> Void) {
        left = Mutex(count)
        self.done = done
        if count <= 0 { done() }
    }

    func tick() {
        let last = left.withLock { n -> Bool in
            n -= 1
            return n == 0
        }
        if last { done() }
    }
}
