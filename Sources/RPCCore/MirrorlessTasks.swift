import Synchronization

/// Tasks whose log named no mirrors when it was read (R19): a task's
/// mirrors are logged in the turn that adds it, before any client can
/// read the log, so a task without that line never gets one. Its `log`
/// — the one file of a task the mount reads from the catalog, about 1.4 ms
/// against 0.2 ms for `status` — is then not read again for `files` and
/// `uris`: a front end polling `tellStatus` or `tellWaiting` pays it once
/// per task. Ids only (8 bytes each); a task gone takes its id with it
/// when its status is found missing.
final class MirrorlessTasks: Sendable {
    private let ids = Mutex<Set<Int64>>([])

    func contains(_ id: Int64) -> Bool { ids.withLock { $0.contains(id) } }
    func insert(_ id: Int64) { _ = ids.withLock { $0.insert(id) } }
    func remove(_ id: Int64) { _ = ids.withLock { $0.remove(id) } }
}
