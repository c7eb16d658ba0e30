import Catalog
import DownloadFSCore
import Foundation
import Logging
import Synchronization

/// The daemon log (root `log`) and the per-task logs (`queue/<id>/log`).
///
/// Lines are stored in the catalog so they survive remounts. The loop
/// commits task lines in the same transaction as the change they describe;
/// daemon lines written from elsewhere (a refused write on a FUSE thread) are
/// queued here and committed with the loop's next batch. The newest daemon
/// lines are also kept in memory so reading `log` is cheap. Every line also
/// goes to the logger (stderr, or STATE/daemon.log in the background), so a
/// line the catalog could not store is still seen.
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
    /// Daemon lines not yet committed, and what to call when there are some.
    private let pending = Mutex<(lines: [EventRecord], wake: (@Sendable () -> Void)?)>(([], nil))
    private let logger: Logger
    fileprivate static let keep = Catalog.daemonLogLines

    init(catalog: Catalog, logger: Logger) {
        self.catalog = catalog
        self.logger = logger
        do {
            let stored = try catalog.events(taskID: nil, limit: Self.keep)
            recent.withLock { r in for event in stored { r.append(Self.line(event)) } }
        } catch {
            logger.error("\(error.message)")
        }
    }

    /// One log line, with its newline.
    static func line(_ event: EventRecord) -> String {
        Units.timestamp(event.at) + " " + event.message + "\n"
    }

    /// From now on queued daemon lines are committed by the loop, which
    /// `wake` tells that there are some.
    func deliver(to wake: @escaping @Sendable () -> Void) {
        pending.withLock { $0.wake = wake }
    }

    /// A line in the daemon log, from any thread: shown at once, committed
    /// with the loop's next batch (or at once before the loop runs).
    func daemon(_ message: String, level: Logger.Level = .info) {
        let event = EventRecord(taskID: nil, at: Date(), message: message)
        show([event], level: level)
        let wake = pending.withLock { p -> (@Sendable () -> Void)? in
            if p.wake != nil { p.lines.append(event) }
            return p.wake
        }
        if let wake { wake() } else { store([event]) }
    }

    /// Shows lines: the daemon's in `log` and, as one message of a line
    /// each, on the logger (one write for a commit's lines, where a write
    /// per line was a twentieth of the loop with 1,000 small downloads, each
    /// of which logs its completion); a task's only at debug level.
    func show(_ events: [EventRecord], level: Logger.Level = .info) {
        let daemon = events.filter { $0.taskID == nil }
        if !daemon.isEmpty {
            recent.withLock { recent in for event in daemon { recent.append(Self.line(event)) } }
            logger.log(level: level, "\(daemon.map(\.message).joined(separator: "\n"))")
        }
        guard logger.logLevel <= .debug else { return }
        for event in events where event.taskID != nil { logger.debug("task \(event.taskID!): \(event.message)") }
    }

    /// Daemon lines are waiting for the loop to store them.
    var hasPending: Bool { pending.withLock { !$0.lines.isEmpty } }

    /// Daemon lines waiting for a batch (the loop takes them each turn).
    func takePending() -> [EventRecord] {
        pending.withLock { p in
            defer { p.lines.removeAll() }
            return p.lines
        }
    }

    /// Stores lines now; a failure is reported, never dropped silently.
    func store(_ events: [EventRecord]) {
        var batch = CatalogBatch()
        batch.events = events
        do { try catalog.commit(batch) } catch { lost(events.count, error) }
    }

    /// Lines the catalog refused: they were shown and logged, say they are not stored.
    func lost(_ count: Int, _ error: CatalogError) {
        logger.error("\(count) log line(s) not stored: \(error.message)")
    }

    /// Lines the catalog refused that are kept to be stored with the next commit (`TaskLoop`).
    func notStoredYet(_ count: Int, kept: Int, _ error: CatalogError) {
        let dropped = count - kept
        let oldest = dropped > 0 ? "; the oldest \(dropped) dropped" : ""
        logger.error("\(count) log line(s) not stored yet (tried again with the next commit\(oldest)): \(error.message)")
    }

    func daemonText() -> String {
        recent.withLock { $0.text }
    }

    /// The size of `daemonText()`, without building it.
    func daemonSize() -> Int {
        recent.withLock { $0.bytes }
    }

    /// A task's log: its derived first line (`TaskLogLine.added`, when
    /// `TaskLogLine.showsAdded` says so), then the stored ones.
    func taskText(_ task: DownloadTask) -> String {
        let stored: [EventRecord]
        do { stored = try catalog.events(taskID: task.taskID) } catch {
            logger.error("\(error.message)")
            return ""
        }
        var lines: [EventRecord] = []
        if TaskLogLine.showsAdded(storedCount: stored.count, firstStored: stored.first?.message, kept: Catalog.taskLogLines) {
            let added = TaskLogLine.added(task)
            lines.append(EventRecord(taskID: added.taskID, at: added.at, message: added.message))
        }
        return (lines + stored).map(Self.line).joined()
    }
}
