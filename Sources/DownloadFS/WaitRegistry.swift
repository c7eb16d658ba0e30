import FuseKit
import Synchronization

/// Readers of `queue/<id>/wait` parked until their task ends (R22).
///
/// The FUSE request is kept, not a thread: thousands of waiters cost a
/// dictionary entry each. Replies are sent after the lock is released.
final class WaitRegistry: Sendable {
    private struct Waiter { let token: UInt64; let reply: ReadReply }
    private struct State { var next: UInt64 = 1; var waiters: [Int64: [Waiter]] = [:] }
    private let state = Mutex(State())

    /// Parks `reply` until `wake(id)`; an interrupted reader gets EINTR at once.
    func park(_ id: Int64, _ reply: ReadReply) {
        let token = state.withLock { s -> UInt64 in
            let token = s.next
            s.next += 1
            s.waiters[id, default: []].append(Waiter(token: token, reply: reply))
            return token
        }
        reply.onInterrupt { [self] in
            let removed = state.withLock { s -> Bool in
                guard let index = s.waiters[id]?.firstIndex(where: { $0.token == token }) else { return false }
                s.waiters[id]!.remove(at: index)
                return true
            }
            if removed { reply.error(.interrupted) }
        }
    }

    /// Answers every reader waiting on `id` with `text`.
    func wake(_ id: Int64, _ text: String) {
        let waiters = state.withLock { $0.waiters.removeValue(forKey: id) } ?? []
        let bytes = Array(text.utf8)
        for waiter in waiters { waiter.reply.bytes(bytes) }
    }

    /// Answers every parked reader with `error` (the mount is going and
    /// the tasks have not ended: no `completed` or `failed:` line is true).
    func failAll(_ error: Errno) {
        let all = state.withLock { s -> [Waiter] in
            defer { s.waiters.removeAll() }
            return s.waiters.values.flatMap { $0 }
        }
        for waiter in all { waiter.reply.error(error) }
    }
}
