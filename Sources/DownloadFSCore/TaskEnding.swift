/// How a task ended, as a read of `queue/<id>/wait` tells it (R22), and
/// what `downloadfs wait` and `add --wait` make of it (R4): one line per
/// task, and an exit status for them all.
public enum TaskEnding: Sendable, Equatable {
    case completed
    /// With the reason `wait` gave: the task's error, `task removed`, `unmounted`.
    case failed(String)

    /// The exit status when some task failed: aria2c's "some downloads failed" (R4).
    public static let someFailedStatus: Int32 = 3

    /// What a read of `wait` returned: `completed` or `failed: WHY`, and a
    /// newline; nil for anything else.
    public init?(waitText: String) {
        var text = Substring(waitText)
        if text.hasSuffix("\n") { text = text.dropLast() }
        if text == "completed" {
            self = .completed
        } else if text.hasPrefix("failed: "), text.count > "failed: ".count {
            self = .failed(String(text.dropFirst("failed: ".count)))
        } else {
            return nil
        }
    }

    /// `3 completed ubuntu.iso` or `3 failed: HTTP 404 Not Found` (R4); a
    /// name that is not known any more (forgotten meanwhile) is `-`.
    public func line(id: Int64, name: String?) -> String {
        switch self {
        case .completed: return "\(id) completed \(name.map(StatusRenderer.singleLine) ?? "-")"
        case .failed(let why): return "\(id) failed: \(StatusRenderer.singleLine(why))"
        }
    }

    /// 0 when every task completed (none at all included), 3 when any failed.
    public static func exitStatus(_ endings: [TaskEnding]) -> Int32 {
        endings.allSatisfy { $0 == .completed } ? 0 : someFailedStatus
    }
}
