import Synchronization

/// Tasks this server cancelled (`remove`, `forceRemove`), as they stood
/// just before, shown by `tellStopped`/`tellStatus` as `removed` until
/// `removeDownloadResult` or `purgeDownloadResult` drops them (R72).
///
/// In memory only, as aria2c keeps its download results: the mount has
/// forgotten the task (R32), and a restarted server shows no removed
/// results. At most `limit` are kept (aria2c's `max-download-result`
/// default); the oldest go first.
final class RemovedResults: Sendable {
    static let limit = 1000

    /// Oldest first.
    private let reports = Mutex<[Aria2TaskReport]>([])

    func keep(_ report: Aria2TaskReport) {
        var removed = report
        removed.state = .removed
        reports.withLock { reports in
            reports.removeAll { $0.id == report.id }
            reports.append(removed)
            if reports.count > Self.limit { reports.removeFirst(reports.count - Self.limit) }
        }
    }

    func report(_ id: Int64) -> Aria2TaskReport? {
        reports.withLock { reports in reports.first { $0.id == id } }
    }

    var all: [Aria2TaskReport] {
        reports.withLock { $0 }
    }

    /// Drops the result of task `id`; false when there was none.
    func drop(_ id: Int64) -> Bool {
        reports.withLock { reports in
            guard let index = reports.firstIndex(where: { $0.id == id }) else { return false }
            reports.remove(at: index)
            return true
        }
    }

    func dropAll() {
        reports.withLock { $0.removeAll() }
    }
}
