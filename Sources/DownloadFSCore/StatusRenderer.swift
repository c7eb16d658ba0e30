import Foundation

/// Renders `queue/<id>/status` (R20): fixed keys in a fixed order, one `key: value` per line.
///
/// Every key is always present ("-" when not applicable) so scripts can rely
/// on the shape; values never contain a line break.
public enum StatusRenderer {
    /// The keys, in the order they are written.
    public static let keys = ["id", "name", "dir", "url", "state", "progress", "downloaded", "total",
                              "speed", "connections", "eta", "attempts", "error", "added", "completed"]

    public static func render(_ task: TaskStatusView, now: Date) -> String {
        let values = [
            String(task.id),
            task.name ?? "-",
            task.folder.flatMap { $0.isEmpty ? nil : $0 } ?? "-",
            task.url,
            task.state.rawValue,
            task.displayProgress,
            String(task.downloaded),
            task.total.map { String($0) } ?? "unknown",
            task.displaySpeed,
            String(task.connections),
            task.displayETA,
            String(task.attempts),
            task.displayError(now: now),
            Units.timestamp(task.added),
            task.completed.map(Units.timestamp) ?? "-",
        ]
        var out = ""
        out.reserveCapacity(400)
        for (key, value) in zip(keys, values) {
            out += key
            out += ": "
            out += singleLine(value)
            out += "\n"
        }
        return out
    }

    /// Replaces line breaks so one value can never look like two keys.
    static func singleLine(_ s: String) -> String {
        // Printable ASCII holds no break: most values, checked by byte
        // rather than by Character (a status is rendered at every read).
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return s }
        guard s.contains(where: { $0.isNewline }) else { return s }
        return String(s.map { $0.isNewline ? " " : $0 })
    }
}
