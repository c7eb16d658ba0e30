import Foundation

/// What a client reads back from the mount's status files (R20, R21):
/// `downloadfs wait` without ids waits on the unfinished rows of
/// `MOUNT/status`, and names a completed task from its `status`; the aria2
/// door (RPCCore) lists tasks from the table and reads each one's `status`.
public enum StatusReading {
    /// One row of `MOUNT/status`: its id and state, the columns a client
    /// can rely on (the others are for people, R21).
    public struct Row: Sendable, Equatable {
        public let id: Int64
        public let state: TaskState

        public init(id: Int64, state: TaskState) {
            self.id = id
            self.state = state
        }
    }

    /// Every row of `MOUNT/status`, in the table's order. The header and
    /// totals lines, and any line that is not a row, are skipped.
    public static func rows(inTable text: String) -> [Row] {
        text.split(separator: "\n").compactMap(row(inLine:))
    }

    /// The row one line of `MOUNT/status` is; nil for the header, the
    /// totals line or anything that is not a row.
    public static func row(inLine line: Substring) -> Row? {
        let cells = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard cells.count >= 2, let id = Int64(cells[0]), let state = TaskState(rawValue: String(cells[1])) else {
            return nil
        }
        return Row(id: id, state: state)
    }

    /// The ids of `MOUNT/status`'s rows whose state is neither `completed`
    /// nor `failed`, in the table's order: queued, downloading, retrying,
    /// verifying and paused tasks (R21).
    public static func unfinishedIDs(inTable text: String) -> [Int64] {
        rows(inTable: text).filter { !$0.state.isFinished }.map(\.id)
    }

    /// The overall speed the table's totals line ends with (`11.8 MiB/s`,
    /// `StatusTotals`); nil when there is no totals line.
    public static func overallSpeed(inTable text: String) -> String? {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("total: ") }),
              let comma = line.range(of: ", ", options: .backwards) else { return nil }
        return String(line[comma.upperBound...])
    }

    /// The value of `key` in a task's `status` (`name: x.iso` → `x.iso`);
    /// nil when the key is missing or its value is `-` (R20).
    public static func value(_ key: String, inStatus text: String) -> String? {
        let prefix = key + ": "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        let value = String(line.dropFirst(prefix.count))
        return value == "-" ? nil : value
    }

    /// Every `key: value` line of a task's `status`, `-` values left out
    /// (R20): a reader that needs most keys splits the text once.
    public static func values(inStatus text: String) -> [String: String] {
        // By byte: aria2's door splits a status at every `tellStatus`.
        var values: [String: String] = [:]
        for line in text.utf8.split(separator: UInt8(ascii: "\n")) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), line[colon...].starts(with: ": ".utf8) else { continue }
            let value = line[line.index(colon, offsetBy: 2)...]
            if !value.elementsEqual("-".utf8) { values[String(Substring(line[..<colon]))] = String(Substring(value)) }
        }
        return values
    }
}
