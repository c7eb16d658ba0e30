import Dispatch
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import RPCCore

/// Runs calls on the pool (a call reads the mount's files, which may be
/// slow), a brief one (`Aria2Call.isBrief`) on the event loop it came in on,
/// and counts the calls whose reply has not gone out yet, so that
/// `RPCServer.stop()` lets every reply leave before the connections close:
/// `aria2.shutdown`'s "OK" comes from the server it stops (R72), with no
/// delay guessed for it.
final class RPCCallRunner: Sendable {
    private let threadPool: NIOThreadPool
    private let call: @Sendable ([UInt8]) -> Aria2Call
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// Calls run or running whose reply is not written yet.
        var unanswered = 0
        /// What waits for `unanswered` to reach 0.
        var whenAnswered: [@Sendable () -> Void] = []
    }

    init(threadPool: NIOThreadPool, call: @escaping @Sendable ([UInt8]) -> Aria2Call) {
        self.threadPool = threadPool
        self.call = call
    }

    /// One call, from `eventLoop`'s thread: answered there when brief, else
    /// on the pool; the future completes on `eventLoop` (it fails when the
    /// pool is shut). The caller calls `answered()` once, when its reply is
    /// written or will never be.
    func run(_ body: [UInt8], on eventLoop: any EventLoop) -> EventLoopFuture<Aria2Reply?> {
        state.withLockedValue { $0.unanswered += 1 }
        let call = self.call(body)
        if call.isBrief { return eventLoop.makeSucceededFuture(call.reply()) }
        return threadPool.runIfActive(eventLoop: eventLoop) { call.reply() }
    }

    func answered() {
        let waiting = state.withLockedValue { state -> [@Sendable () -> Void] in
            state.unanswered -= 1
            guard state.unanswered == 0 else { return [] }
            defer { state.whenAnswered = [] }
            return state.whenAnswered
        }
        // Off the event loop this runs on: what waits shuts the loops down.
        for body in waiting { DispatchQueue.global().async(execute: body) }
    }

    /// Runs `body` once every call has been answered, or after `limit`
    /// whatever is left: a call stuck on a hung mount must not keep the
    /// server from stopping.
    func whenAllAnswered(within limit: DispatchTimeInterval, _ body: @escaping @Sendable () -> Void) {
        let done = NIOLockedValueBox(false)
        let once: @Sendable () -> Void = {
            let first = done.withLockedValue { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { body() }
        }
        let answeredAlready = state.withLockedValue { state -> Bool in
            guard state.unanswered > 0 else { return true }
            state.whenAnswered.append(once)
            return false
        }
        guard !answeredAlready else { return once() }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: once)
    }
}
