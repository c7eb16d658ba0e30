import DownloadFSCore

/// The notifications WebSocket clients get, made from the lines of
/// `MOUNT/events` (R24 `TIME ID EVENT NAME`, R73) in the order they come.
///
/// `downloading` → `aria2.onDownloadStart` (also after a resume, when the
/// task starts again), `paused` → `onDownloadPause`, `removed` →
/// `onDownloadStop`, `completed` → `onDownloadComplete`, `failed` →
/// `onDownloadError`. `added`, `queued`, `retrying`, `verifying`,
/// `renamed`, `forgotten` and a `lost N` line have no aria2 counterpart:
/// none (a client that missed lines refreshes with `tellActive` and
/// friends anyway).
///
/// A task that retries goes `retrying`, `queued`, `downloading` again,
/// while aria2 shows it `active` throughout (R72), and aria2c sends one
/// start and, after the last try, one error: a start after a retry is no
/// new `onDownloadStart` (a web front end pops up "started" for each). The
/// feed remembers the tasks between `retrying` and their next start; any
/// other line of theirs, or a `lost` line, forgets them.
public struct Aria2NotificationFeed: Sendable {
    private var retrying: Set<Int64> = []

    public init() {}

    /// The notification for `line` (its newline, if any, is ignored),
    /// encoded (`{"jsonrpc":"2.0","method":"aria2.onDownloadStart","params":[{"gid":"000000000000000a"}]}`);
    /// nil when none.
    public mutating func notice(forEventLine line: String) -> [UInt8]? {
        let id: Int64, event: Substring
        switch EventLine.read(Substring(line)) {
        case .change(let changed, let what, _): (id, event) = (changed, what)
        case .lost:
            retrying = []  // what it missed is unknown
            return nil
        case .other: return nil
        }
        switch event {
        case "retrying": retrying.insert(id)
        case "queued": break
        case "downloading" where retrying.remove(id) != nil: return nil
        default: retrying.remove(id)
        }
        guard let method = Self.method(forEvent: event) else { return nil }
        return JSONValue.object([
            "jsonrpc": .string("2.0"),
            "method": .string(method),
            "params": .array([.object(["gid": .string(Aria2GID.text(id))])]),
        ]).encoded
    }

    static func method(forEvent event: Substring) -> String? {
        switch event {
        case "downloading": return "aria2.onDownloadStart"
        case "paused": return "aria2.onDownloadPause"
        case "removed": return "aria2.onDownloadStop"
        case "completed": return "aria2.onDownloadComplete"
        case "failed": return "aria2.onDownloadError"
        default: return nil
        }
    }
}
