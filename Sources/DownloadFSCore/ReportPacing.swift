/// When the loop commits what engine and worker reports changed.
///
/// A turn whose messages are all reports (a response head, a file's last
/// byte, a flush, a move into files/) has nobody waiting on its commit:
/// its starts go out before the commit (`TaskSetTurn.takeStartsBeforeCommit`),
/// and what it shows may wait a little for company. Its changes are kept
/// until the oldest is `window` old, so the reports of that window share one
/// commit: with 1,000 small files, 16 at a time, a commit per report turn
/// was some 500 commits, each a transaction and a write of its pages to the
/// WAL; paced, 53–62. A turn with a request, a reader or a reply to give commits at once,
/// and so does one whose change is due. So does a turn with no task
/// downloading: the only company left to wait for is a few flushes and
/// moves, and the wait would only hold back the last files' `completed`
/// and `finalized` (the end of a batch, or a lone download). The turn in
/// which the last download ends is also when the engine's flush group
/// stops waiting for company (`downloadsEnded`). Both together: a lone
/// 64 KiB download 11–14 → 2.6 ms from its add to `wait`, a 1,000-file
/// batch's tail after its last byte 8.2 → 3.7 ms.
public struct ReportPacing: Sendable {
    /// How long a report's change may wait to be committed and shown.
    public static let window = 0.002

    /// When the oldest change not yet committed was made (monotonic seconds).
    public private(set) var oldest: Double?
    /// Some task held a download slot at the end of the previous turn.
    private var wasDownloading = false

    public init() {}

    /// After a wake-up at `now`: whether to commit now. `onlyReports`: the
    /// wake-up brought nothing but reports; `changes`: something is left to
    /// commit (changes, failed rows, daemon lines); `replies`: a writer
    /// waits for the commit; `downloading`: some task holds a download slot.
    public mutating func commitNow(at now: Double, onlyReports: Bool, changes: Bool, replies: Bool,
                                   downloading: Bool) -> Bool {
        if changes, oldest == nil { oldest = now }
        return !onlyReports || replies || oldest != nil && !downloading
            || oldest.map { now - $0 >= Self.window } ?? false
    }

    /// Whether the last download ended since the previous turn (`downloading`:
    /// some task holds a download slot after this turn's schedule pass):
    /// then the loop tells the engine, whose finished files need not wait
    /// for flush company (`Engine.noneDownloading`).
    public mutating func downloadsEnded(downloading: Bool) -> Bool {
        defer { wasDownloading = downloading }
        return wasDownloading && !downloading
    }

    /// When the loop must wake up to commit, if it has changes kept.
    public var deadline: Double? { oldest.map { $0 + Self.window } }

    /// Everything kept was committed.
    public mutating func committed() { oldest = nil }
}
