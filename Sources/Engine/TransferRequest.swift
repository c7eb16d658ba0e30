import DownloadFSCore

/// Everything the engine needs to run one attempt of one task.
public struct TransferRequest: Sendable {
    public var id: Int64
    public var url: String
    /// Other URLs of the same file (R19), not dropped yet; connections spread over `url` and these.
    public var mirrors: [String]
    /// What every connection sends: the user's `header=` lines, Referer,
    /// User-Agent, credentials, proxy, cookies (R10), on each segment and mirror.
    public var connection: ConnectionOptions
    /// The byte ranges the data file holds (committed, R51): only the others are fetched.
    public var ranges: ByteRanges
    /// What is known of the file: its total and validators (R52); `offset` is not used.
    public var known: StoredProgress
    /// How many connections may fetch at once (R18), 1…16, and the smallest segment.
    public var split: SplitPolicy
    public var partialPath: String
    /// Fetch only what readers wait for (R23: a paused or queued task being read).
    public var readsOnly: Bool
    /// Back-off and tries per mirror (R19, R53): the task's own policy.
    public var retry: RetryPolicy

    /// Speed limits and later changes of `split` are sent separately
    /// (`Engine.setSpeedLimit`, `Engine.setSplit`), since they change while a transfer runs.
    public init(id: Int64, url: String, mirrors: [String] = [], connection: ConnectionOptions, ranges: ByteRanges,
                known: StoredProgress, split: SplitPolicy, partialPath: String, readsOnly: Bool = false,
                retry: RetryPolicy = RetryPolicy()) {
        self.id = id
        self.url = url
        self.mirrors = mirrors
        self.connection = connection
        self.ranges = ranges
        self.known = known
        self.split = split
        self.partialPath = partialPath
        self.readsOnly = readsOnly
        self.retry = retry
    }

    var isFTP: Bool { TransferProtocol(url: url) == .ftp }

    /// The ranges an attempt builds on: FTP fetches one range to the end
    /// (REST), so only a prefix is of use there.
    var held: ByteRanges { held(of: ranges) }

    /// What an attempt builds on of `ranges` (`held`).
    func held(of ranges: ByteRanges) -> ByteRanges { isFTP ? ByteRanges.prefix(ranges.prefixEnd) : ranges }
}
