import Catalog
import DownloadFSCore
import Foundation
import Logging
import Synchronization

/// The daemon log (root `log`) and the per-task logs (`queue/<id>/log`).
///
/// Lines are stored in the catalog so they survive remounts; the newest
/// daemon lines are also kept in memory so reading `log` is cheap.
final class EventLog: Sendable {
    private let catalog: Catalog
    private let recent: Mutex<[String]>
    private let logger: Logger
    private static let keep = Catalog.daemonLogLines

    init(catalog: Catalog, logger: Logger) {
        self.catalog = catalog
        self.logger = logger
        let stored = (try? catalog.events(taskID: nil, limit: Self.keep)) ?? []
        recent = Mutex(stored.map(Self.line))
    }

    static func line(_ event: EventRecord) -> String {
        Units.timestamp(event.at) + " " + event.message
    }

    /// A line in the daemon log (and on stderr for `--foreground`).
    func daemon(_ message: String, level: Logger.Level = .info) {
        let event = EventRecord(taskID: nil, at: Date(), message: message)
        try? catalog.append(event)
        recent.withLock {
            $0.append(Self.line(event))
            if $0.count > Self.keep * 2 { $0.removeFirst($0.count - Self.keep) }
        }
        logger.log(level: level, "\(message)")
    }

    /// A line in one task's log.
    func task(_ id: Int64, _ message: String) {
        try? catalog.append(EventRecord(taskID: id, at: Date(), message: message))
        logger.debug("task \(id): \(message)")
    }

    func daemonText() -> String {
        recent.withLock { $0.suffix(Self.keep).map { $0 + "\n" }.joined() }
    }

    func taskText(_ id: Int64) -> String {
        ((try? catalog.events(taskID: id)) ?? []).map { Self.line($0) + "\n" }.joined()
    }
}
