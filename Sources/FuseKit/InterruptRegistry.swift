import Foundation

/// Maps the small integer tokens handed to `fuse_req_interrupt_func` back to
/// the handlers waiting for an interrupt.
///
/// libfuse may call the interrupt function after we replied, or from inside
/// `fuse_req_interrupt_func` itself; passing a token instead of an object
/// pointer means a late call finds nothing and does nothing — no dangling
/// pointer, no retain to balance.
final class InterruptRegistry: @unchecked Sendable {
    static let shared = InterruptRegistry()

    private let lock = NSLock()
    private var next: UInt = 1
    private var handlers: [UInt: @Sendable () -> Void] = [:]

    func add(_ handler: @escaping @Sendable () -> Void) -> UInt {
        lock.lock()
        defer { lock.unlock() }
        let token = next
        next += 1
        handlers[token] = handler
        return token
    }

    func remove(_ token: UInt) {
        lock.lock()
        handlers[token] = nil
        lock.unlock()
    }

    /// Removes and returns the handler, so it runs at most once.
    func take(_ token: UInt) -> (@Sendable () -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        return handlers.removeValue(forKey: token)
    }
}
