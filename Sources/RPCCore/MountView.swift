import DownloadFSCore

/// The mount as aria2's door sees it (R70): every call goes through the
/// mount's own files, so the RPC server shows nothing `cat` would not,
/// needs no access to the state dir, and can crash or restart without
/// touching a download. `Aria2Dispatcher` (pure) decides; an adapter
/// (`MountFiles`, in the server's target) does the I/O. Unit tests drive
/// the dispatcher with an in-memory mount.
///
/// Texts are returned exactly as the files give them; parsing them is the
/// dispatcher's (with `StatusReading` and friends from the core).
public protocol MountView: Sendable {
    /// The mountpoint, for the paths replies show (`MOUNT/files/NAME`).
    var path: String { get }
    /// Writes aria2 input-file text to `queue/new` on one handle and reads
    /// the ids back (R10, R12): one id per URL line, in order.
    func add(_ input: String) throws(MountViewError) -> [Int64]
    /// One command to `queue/<id>/ctl` (R30).
    func control(_ id: Int64, _ command: String) throws(MountViewError)
    /// One command to `MOUNT/ctl` (R31).
    func controlGlobal(_ command: String) throws(MountViewError)
    /// `rm -r queue/<id>` (R32).
    func remove(_ id: Int64) throws(MountViewError)
    /// Task `id`: its `queue/<id>/status` (R20), with its other URLs still
    /// in use (R19, the attribute `user.downloadfs.mirrors` of its `url`)
    /// when `mirrors`, and the byte ranges it holds (the attribute
    /// `user.downloadfs.ranges` of its data file) when `ranges`; nil when
    /// the task is gone. The task's directory answers all three in one
    /// request (`TaskReportAttribute`).
    func task(_ id: Int64, mirrors: Bool, ranges: Bool) throws(MountViewError) -> MountedTask?
    /// `user.downloadfs.place` of `queue/<id>/`: where the task stands in
    /// the waiting line (R30); nil when it has no place, or the mount does
    /// not say (an older daemon).
    func place(_ id: Int64) throws(MountViewError) -> Int?
    /// `user.downloadfs.line` of `queue/`: the waiting line in start order
    /// (`WaitingLineAttribute`), as far as 64 KiB holds it, and how many
    /// more wait; nil when the mount does not say (an older daemon).
    func waitingLine() throws(MountViewError) -> (ids: [Int64], more: Int)?
    /// `queue/<id>/ctl` read back: the task's settings in force (R30); nil when gone.
    func settings(_ id: Int64) throws(MountViewError) -> String?
    /// `MOUNT/ctl` read back: the mount's settings (R31).
    func globalSettings() throws(MountViewError) -> String
    /// `MOUNT/status`: every task as a table (R21).
    func table() throws(MountViewError) -> String
    /// `MOUNT/status` line by line, as it is read, until `body` returns
    /// false: the first rows of a table of 100,000 tasks come in
    /// milliseconds, the whole in about half a second.
    func forEachTableLine(_ body: (Substring) -> Bool) throws(MountViewError)
}

/// A mount file operation that failed: its errno and the sentence the
/// mount gave (for a refused write, the reason `MOUNT/log` names).
public struct MountViewError: Error, Sendable, Equatable {
    public let code: Int32
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
}
