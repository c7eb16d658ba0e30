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
    /// The newest daemon lines, each ending in a newline, and their total
    /// size, so `getattr` of `log` (every `ls -l`) costs nothing per line.
    private struct Recent {
        var lines: [String] = []
        var first = 0
        var bytes = 0

        mutating func append(_ line: String) {
            lines.append(line)
            bytes += line.utf8.count
            while lines.count - first > EventLog.keep {
                bytes -= lines[first].utf8.count
                first += 1
            }
            // Drop the shown-out prefix now and then, not on every line.
            if first > EventLog.keep {
                lines.removeFirst(first)
                first = 0
            }
        }

        var text: String { lines[first...].joined() }
    }

    private let catalog: Catalog
    private let recent = Mutex(Recent())
    private let logger: Logger
    fileprivate static let keep = Catalog.daemonLogLines

    init(catalog: Catalog, logger: Logger) {
        self.catalog = catalog
        self.logger = logger
        let stored = (try? catalog.events(taskID: nil, limit: Self.keep)) ?? []
        recent.withLock { r in for event in stored { r.append(Self.line(event)) } }
    }

    /// One log line, with its newline.
    static func line(_ event: EventRecord) -> String {
        Units.timestamp(event.at) + " " + event.message + "\n"
    }

    /// A line in the daemon log (and on stderr for `--foreground`).
    func daemon(_ message: String, level: Logger.Level = .info) {
        let event = EventRecord(taskID: nil, at: Date(), message: message)
        try? catalog.append(event)
        recent.withLock { $0.append(Self.line(event)) }
        logger.log(level: level, "\(message)")
    }

    /// A line in one task's log.
    func task(_ id: Int64, _ message: String) {
        try? catalog.append(EventRecord(taskID: id, at: Date(), message: message))
        logger.debug("task \(id): \(message)")
    }

    func daemonText() -> String {
        recent.withLock { $0.text }
    }

    /// The size of `daemonText()`, without building it.
    func daemonSize() -> Int {
        recent.withLock { $0.bytes }
    }

    func taskText(_ id: Int64) -> String {
        ((try? catalog.events(taskID: id)) ?? []).map(Self.line).joined()
    }
}
