/// What a client reads back from the mount's status files (R20, R21):
/// `downloadfs wait` without ids waits on the unfinished rows of
/// `MOUNT/status`, and names a completed task from its `status`.
public enum StatusReading {
    /// The ids of `MOUNT/status`'s rows whose state is neither `completed`
    /// nor `failed`, in the table's order: queued, downloading, retrying,
    /// verifying and paused tasks (R21). The header and totals lines, and any
    /// line that is not a row, are skipped.
    public static func unfinishedIDs(inTable text: String) -> [Int64] {
        var ids: [Int64] = []
        for line in text.split(separator: "\n") {
            let cells = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            guard cells.count >= 2, let id = Int64(cells[0]), let state = TaskState(rawValue: String(cells[1])) else {
                continue
            }
            if state != .completed && state != .failed { ids.append(id) }
        }
        return ids
    }

    /// The value of `key` in a task's `status` (`name: x.iso` → `x.iso`);
    /// nil when the key is missing or its value is `-` (R20).
    public static func value(_ key: String, inStatus text: String) -> String? {
        let prefix = key + ": "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        let value = String(line.dropFirst(prefix.count))
        return value == "-" ? nil : value
    }
}
