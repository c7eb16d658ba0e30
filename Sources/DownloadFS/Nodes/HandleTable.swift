import Synchronization

/// Open handles by the number the kernel hands back in read, write, flush
/// and release. Numbers come from a counter, never reused in a mount.
final class HandleTable: Sendable {
    private struct State { var next: UInt64 = 1; var open: [UInt64: any OpenFile] = [:] }
    private let state = Mutex(State())

    func register(_ file: any OpenFile) -> UInt64 {
        state.withLock { s in
            let handle = s.next
            s.next += 1
            s.open[handle] = file
            return handle
        }
    }

    func file(_ handle: UInt64) -> (any OpenFile)? {
        state.withLock { $0.open[handle] }
    }

    func remove(_ handle: UInt64) -> (any OpenFile)? {
        state.withLock { $0.open.removeValue(forKey: handle) }
    }
}
