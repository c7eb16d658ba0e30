/// What `downloadfs ctl ID|all COMMAND…` writes to (R4): a task's `ctl`
/// (R30) or, for `all`, the mount's (R31).
public enum ControlTarget: Sendable, Equatable {
    case task(Int64)
    case all

    /// `all`, or a task id (digits, 1 or more); nil for anything else.
    public init?(_ word: String) {
        if word == "all" { self = .all; return }
        guard !word.isEmpty, word.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let id = Int64(word), id >= 1 else { return nil }
        self = .task(id)
    }

    /// The command one write to this `ctl` holds, or why it is refused:
    /// a task's commands (R30) or the mount's (R31).
    public func parse(_ text: String) -> Result<ControlCommand, ControlCommandError> {
        switch self {
        case .task: return ControlCommand.parseTask(text)
        case .all: return ControlCommand.parseGlobal(text)
        }
    }

    /// The file under the mountpoint: `queue/3/ctl` or `ctl`.
    public var file: String {
        switch self {
        case .task(let id): return "queue/\(id)/ctl"
        case .all: return "ctl"
        }
    }

    /// Why the mount refused thread `writer`'s write to this file, from
    /// `MOUNT/log`: the newest line `<time> <file>: refused (pid N): REASON`
    /// for it (the daemon writes it before it answers EINVAL; an older
    /// daemon's lines name no writer, `RefusalLogLine`); nil when there is none.
    public func refusal(inLog log: String, writer: Int32) -> String? {
        let marker = "\(file): refused: "
        guard let message = RefusalLogLine.newest(from: file, writer: writer, inLog: log),
              message.hasPrefix(marker) else { return nil }
        return String(message.dropFirst(marker.count))
    }
}
