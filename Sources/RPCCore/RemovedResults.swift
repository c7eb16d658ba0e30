import Synchronization

/// Tasks this server cancelled (`remove`, `forceRemove`), as they stood
/// just before, shown by `tellStopped`/`tellStatus` as `removed`, and their
/// options by `getOption`, until `removeDownloadResult` or
/// `purgeDownloadResult` drops them (R72).
///
/// In memory only, as aria2c keeps its download results: the mount has
/// forgotten the task (R32), and a restarted server shows no removed
/// results. At most `limit` are kept (aria2c's `max-download-result`
/// default); the oldest go first.
final class RemovedResults: Sendable {
    static let limit = 1000

    /// Oldest first, each with what `getOption` answered just before.
    private let results = Mutex<[(report: Aria2TaskReport, options: JSONValue?)]>([])

    func keep(_ report: Aria2TaskReport, options: JSONValue? = nil) {
        var removed = report
        removed.state = .removed
        results.withLock { results in
            results.removeAll { $0.report.id == report.id }
            results.append((removed, options))
            if results.count > Self.limit { results.removeFirst(results.count - Self.limit) }
        }
    }

    func report(_ id: Int64) -> Aria2TaskReport? {
        results.withLock { results in results.first { $0.report.id == id }?.report }
    }

    /// The options task `id` had when it was removed here.
    func options(_ id: Int64) -> JSONValue? {
        results.withLock { results in results.first { $0.report.id == id }?.options }
    }

    var all: [Aria2TaskReport] {
        results.withLock { $0.map(\.report) }
    }

    /// Drops the result of task `id`; false when there was none.
    func drop(_ id: Int64) -> Bool {
        results.withLock { results in
            guard let index = results.firstIndex(where: { $0.report.id == id }) else { return false }
            results.remove(at: index)
            return true
        }
    }

    func dropAll() {
        results.withLock { $0.removeAll() }
    }
}
