import Dispatch
import Synchronization

/// The answer to a request a FUSE thread sent the loop (a `ctl` write, an
/// add): the FUSE thread blocks in `wait` — outside any lock — until the loop
/// has committed the change and answered. Also the answer of work a FUSE
/// thread must not wait on for ever (`CookieFileReader`): `wait(until:)`.
final class LoopReply<Value: Sendable, Failure: Error & Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Value, Failure>?>(nil)

    func answer(_ value: Result<Value, Failure>) {
        let first = result.withLock { r -> Bool in
            guard r == nil else { return false }
            r = value
            return true
        }
        if first { done.signal() }
    }

    func wait() throws(Failure) -> Value {
        done.wait()
        return try result.withLock { $0! }.get()
    }

    /// The answer, or nil when none came by `deadline`.
    func wait(until deadline: DispatchTime) -> Result<Value, Failure>? {
        guard done.wait(timeout: deadline) == .success else { return nil }
        return result.withLock { $0 }
    }
}
