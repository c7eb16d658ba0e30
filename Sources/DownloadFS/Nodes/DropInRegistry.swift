import Synchronization

/// The files being copied into `queue/` (R14), by name while they are open.
/// Each gets a number of its own (its inode, `NodeID.dropIn`), so a name
/// created again while an older copy is still open is not mistaken for it.
final class DropInRegistry: Sendable {
    private struct State { var next: UInt64 = 1; var byName: [String: UInt64] = [:] }
    private let state = Mutex(State())

    /// Registers `name`; EEXIST while a drop-in of that name is open.
    func register(_ name: String) -> UInt64? {
        state.withLock { s in
            guard s.byName[name] == nil else { return nil }
            let number = s.next
            s.next += 1
            s.byName[name] = number
            return number
        }
    }

    func number(_ name: String) -> UInt64? {
        state.withLock { $0.byName[name] }
    }

    /// Forgets `name` if it is still drop-in `number`; true if it was.
    @discardableResult
    func remove(_ name: String, number: UInt64) -> Bool {
        state.withLock { s in
            guard s.byName[name] == number else { return false }
            s.byName[name] = nil
            return true
        }
    }

    /// Forgets `name` whichever drop-in it is (`rm queue/NAME`).
    func remove(_ name: String) -> UInt64? {
        state.withLock { $0.byName.removeValue(forKey: name) }
    }
}
