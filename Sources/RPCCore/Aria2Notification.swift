/// The notification a WebSocket client gets for a line of `MOUNT/events`
/// (R24 `TIME ID EVENT NAME`, R73).
///
/// `downloading` → `aria2.onDownloadStart` (also after a retry or a
/// resume, when the task starts again), `paused` → `onDownloadPause`,
/// `removed` → `onDownloadStop`, `completed` → `onDownloadComplete`,
/// `failed` → `onDownloadError`. `added`, `queued`, `retrying`,
/// `verifying`, `renamed`, `forgotten` and a `lost N` line have no aria2
/// counterpart: none (a client that missed lines refreshes with `tellActive`
/// and friends anyway).
enum Aria2Notification {
    static func method(forEvent event: String) -> String? {
        switch event {
        case "downloading": return "aria2.onDownloadStart"
        case "paused": return "aria2.onDownloadPause"
        case "removed": return "aria2.onDownloadStop"
        case "completed": return "aria2.onDownloadComplete"
        case "failed": return "aria2.onDownloadError"
        default: return nil
        }
    }

    /// The notification for `line` (its newline, if any, is ignored); nil when none.
    static func message(forEventLine line: String) -> JSONValue? {
        let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard words.count >= 3, let id = Int64(words[1].trimmingSuffix(\.isNewline)), id > 0,
              let method = method(forEvent: String(words[2].trimmingSuffix(\.isNewline))) else { return nil }
        return .object([
            "jsonrpc": .string("2.0"),
            "method": .string(method),
            "params": .array([.object(["gid": .string(Aria2GID.text(id))])]),
        ])
    }
}

private extension Substring {
    func trimmingSuffix(_ isTrimmed: (Character) -> Bool) -> Substring {
        var text = self
        while let last = text.last, isTrimmed(last) { text = text.dropLast() }
        return text
    }
}
