import CLinux
import Foundation
import Glibc

/// A thread started with `pthread_create` itself, so a thread that cannot
/// be made (no memory, the process's thread limit) is known at once:
/// Foundation's `Thread.start` ignores that failure, and whoever waits for
/// the thread's work would wait forever. Every thread the daemon and the
/// door make is made here, so each caller says what it does without one.
public enum OSThread {
    private final class Work {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name` (as `ps -L` shows it),
    /// or says why none could be made. A joinable thread must be joined
    /// (`pthread_join`), a detached one ends on its own.
    @discardableResult
    public static func start(_ name: String, stackSize: Int = defaultStackSize, joinable: Bool = false,
                             _ body: @escaping () -> Void) throws(ThreadStartError) -> pthread_t {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN)))
        pthread_attr_setdetachstate(&attributes, Int32(joinable ? PTHREAD_CREATE_JOINABLE : PTHREAD_CREATE_DETACHED))
        let work = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, { context in
            let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
            clinux_name_thread(work.name)
            work.body()
            return nil
        }, work)
        guard started == 0 else {
            Unmanaged<Work>.fromOpaque(work).release()
            throw ThreadStartError(name: name, code: started)
        }
        return thread
    }

    /// glibc's default (RLIMIT_STACK's usual 8 MiB), what Foundation's
    /// `Thread` gave: address space, of which only what is touched is memory.
    public static let defaultStackSize = 8 << 20

    /// Runs `body(i)` for every `i` in `0..<count` on up to `width` threads
    /// at once, the caller's among them, each taking the next index until
    /// none is left; returns when all are done. A thread that cannot be
    /// made only narrows the width (the caller does what is left), so this
    /// always returns.
    public static func lanes(_ count: Int, width: Int, name: String, stackSize: Int = 64 << 10,
                      _ body: @escaping (Int) -> Void) {
        let next = NextIndex()
        let lane = { while let i = next.take(below: count) { body(i) } }
        let helpers = (1..<max(1, min(width, count))).compactMap { _ in
            try? start(name, stackSize: stackSize, joinable: true, lane)
        }
        lane()
        for thread in helpers { pthread_join(thread, nil) }
    }

    /// The next index to take, shared by the lanes.
    private final class NextIndex: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0

        func take(below count: Int) -> Int? {
            lock.withLock {
                guard value < count else { return nil }
                value += 1
                return value - 1
            }
        }
    }
}
