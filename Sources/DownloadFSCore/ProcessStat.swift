/// What `/proc/PID/stat` says about a process that downloadfs waits on or
/// looks for (a door `mount --rpc` started, a daemon being unmounted).
public struct ProcessStat: Equatable, Sendable {
    /// One letter: R, S, D, Z, …
    public let state: Character
    public let parent: Int32

    /// Parses the line; the command name is in parentheses and may hold
    /// spaces and parentheses itself, so fields are counted after the last `)`.
    public init?(line: String) {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, fields[0].count == 1, let parent = Int32(fields[1]) else {
            return nil
        }
        self.state = state
        self.parent = parent
    }

    /// Whether a process has let go of everything it held: gone (no stat),
    /// or a zombie with no thread left. A zombie leader whose other threads
    /// are still exiting (one blocked in a read of `MOUNT/events`, say)
    /// still holds its files open, and the unmount would be refused.
    public static func hasEnded(_ stat: ProcessStat?, threads: Int) -> Bool {
        guard let stat else { return true }
        return stat.state == "Z" && threads <= 1
    }
}
