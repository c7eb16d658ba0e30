import Foundation

/// One download task: what the catalog stores of it (everything needed to
/// show it and to carry it on after a remount), plus the few facts about its
/// running transfer that live only in memory.
///
/// Only `TaskMachine` changes a task; the daemon's loop commits the stored
/// part to the catalog before anything shows the change (R15).
public struct DownloadTask: Sendable, Equatable {
    /// Never reused: the table uses AUTOINCREMENT, so even the highest id of a
    /// deleted task is not handed out again. Nil until inserted.
    public var id: Int64?
    /// The URL, options and time it was added with, shared between copies.
    public private(set) var origin: TaskOrigin
    public var url: String {
        get { origin.url }
        set { origin = TaskOrigin(url: newValue, normalizedURL: normalizedURL, options: options, addedAt: addedAt) }
    }
    /// R13 key: the same normalised URL is downloaded once.
    public var normalizedURL: String {
        get { origin.normalizedURL }
        set { origin = TaskOrigin(url: url, normalizedURL: newValue, options: options, addedAt: addedAt) }
    }
    public var options: TaskOptions {
        get { origin.options }
        set { origin = TaskOrigin(url: url, normalizedURL: normalizedURL, options: newValue, addedAt: addedAt) }
    }
    public var addedAt: Date {
        get { origin.addedAt }
        set { origin = TaskOrigin(url: url, normalizedURL: normalizedURL, options: options, addedAt: newValue) }
    }
    /// The file's reserved place under `files/` (`FilesPath`): its name,
    /// after its folder when it has one (R35); sanitised, unique among
    /// tasks and STATE/files. `fileName` and `folder` are its two parts.
    public var name: String
    public var state: TaskState
    /// What of the file is safely on disk: each range fdatasync'ed before
    /// it was committed (R18, R51). Several when segments were fetched in
    /// parallel or a crash left holes.
    public var ranges = ByteRanges()
    /// Bytes safely on disk: the sum of `ranges`. Setting it means the first
    /// `newValue` bytes, as one connection from zero writes them.
    public var downloaded: Int64 {
        get { ranges.count }
        set { ranges = newValue > 0 ? ByteRanges([0..<newValue]) : ByteRanges() }
    }
    public var total: Int64?
    /// Transfer attempts started so far.
    public var attempts: Int
    /// Attempts in a row that failed without receiving any data (R53).
    public var failuresWithoutData: Int
    public var error: String?
    public var completedAt: Date?
    /// Position in the waiting line (lower starts first; `top` makes it lowest).
    public var position: Int64
    /// The server's validators, type and final URL, shared between copies.
    public var remote: RemoteFacts = .none
    /// Validators of the data we hold, for If-Range (R52); for FTP the MDTM.
    public var etag: String? {
        get { remote.etag }
        set { remote = RemoteFacts(etag: newValue, lastModified: lastModified, contentType: contentType, finalURL: finalURL) }
    }
    public var lastModified: String? {
        get { remote.lastModified }
        set { remote = RemoteFacts(etag: etag, lastModified: newValue, contentType: contentType, finalURL: finalURL) }
    }
    public var contentType: String? {
        get { remote.contentType }
        set { remote = RemoteFacts(etag: etag, lastModified: lastModified, contentType: newValue, finalURL: finalURL) }
    }
    /// The URL after redirects, once known.
    public var finalURL: String? {
        get { remote.finalURL }
        set { remote = RemoteFacts(etag: etag, lastModified: lastModified, contentType: contentType, finalURL: newValue) }
    }
    /// Per-task speed limit in bytes/s (0: none).
    public var speedLimit: Int64
    /// Connections this task may open at once (R18), from `split=N` or
    /// `ctl split N`; nil means the daemon's default (`--split`, `MOUNT/ctl
    /// split N`), so a change of the default reaches every task without its own.
    public var split: Int?
    /// When a `retrying` task's back-off ends.
    public var retryAt: Date?
    /// URLs of this task the engine gave up on (R19: a 4xx, another total,
    /// another strong ETag than the first answer), in the order dropped;
    /// the first URL may be among them. Later attempts fetch from the others.
    public var droppedMirrors: [String] = []

    // MARK: in memory only (not in the catalog)

    /// The current transfer attempt; reports from older ones are ignored.
    public var serial: UInt64 = 0
    /// What attempt `serial` is doing now: the one place the machine keeps
    /// it (`transferring` and `stopping` are read from it).
    public var phase: AttemptPhase = .idle
    /// Monotonic time the task last started downloading (preemption order, R30/R31).
    public var startedAt: Double?
    /// The attempt fetching only what readers ask for while the task is
    /// not downloading (a paused, queued or retrying task read, R23).
    public var reading: UInt64?

    public init(url: String, normalizedURL: String, options: TaskOptions, name: String,
                addedAt: Date, position: Int64) {
        self.init(origin: TaskOrigin(url: url, normalizedURL: normalizedURL, options: options, addedAt: addedAt),
                  name: name, position: position)
    }

    /// A new task, `queued`, with nothing downloaded yet.
    public init(origin: TaskOrigin, name: String, position: Int64) {
        self.id = nil
        self.origin = origin
        self.name = name
        self.state = .queued
        self.total = nil
        self.attempts = 0
        self.failuresWithoutData = 0
        self.error = nil
        self.completedAt = nil
        self.position = position
        self.speedLimit = origin.options.maxDownloadLimit ?? 0
        self.split = origin.options.split
        self.retryAt = nil
    }

    /// The file's own name (R17), without its folder: what `status` and
    /// `queue/<id>/` show.
    public var fileName: String { FilesPath.name(of: name) }

    /// The folder under `files/` the file is in, or goes to; "" for the top (R35).
    public var folder: String { FilesPath.folder(of: name) }

    /// The other URLs of the file after `url` (R19), dropped ones included.
    public var mirrors: [String] { options.mirrors ?? [] }

    /// Every URL still worth asking, the first URL first (unless dropped).
    public var liveURLs: [String] {
        let all = [url] + mirrors
        return droppedMirrors.isEmpty ? all : all.filter { !droppedMirrors.contains($0) }
    }

    /// Every URL of the task, normalised (R13), the first URL's first, each once.
    /// Worked out on demand: only a task with mirrors has more than one, and
    /// only indexing asks (when a task is added, loaded or fails).
    public var normalizedURLs: [String] {
        guard let mirrors = options.mirrors, !mirrors.isEmpty else { return [normalizedURL] }
        var keys = [normalizedURL]
        var seen: Set<String> = [normalizedURL]
        for mirror in mirrors {
            let key = URLNormalizer.normalize(mirror)
            if seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    /// The id of a stored task (tasks are only handed out after insert).
    public var taskID: Int64 { id ?? 0 }

    /// Attempt `serial` has a transfer the engine has not reported finished
    /// yet (fetching, stopping or syncing): a stop can be waited for.
    public var transferring: Bool { phase.hasTransfer }

    /// A stop asked of the running transfer, carried out when it reports.
    public var stopping: StopReason? { phase.stop }

    /// Its whole file is being moved into STATE/files (R43).
    public var isMovingIntoFiles: Bool { phase == .movingIn }

    /// What a resumed request builds on (R52).
    public var stored: StoredProgress {
        StoredProgress(offset: downloaded, total: total, etag: etag, lastModified: lastModified)
    }

    /// True when the catalog's copy differs: the in-memory fields aside.
    public func differsInCatalog(from other: DownloadTask) -> Bool {
        var a = self, b = other
        a.clearRuntime()
        b.clearRuntime()
        return a != b
    }

    private mutating func clearRuntime() {
        serial = 0
        phase = .idle
        startedAt = nil
        reading = nil
    }
}
