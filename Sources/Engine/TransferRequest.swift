import DownloadFSCore

/// Everything the engine needs to run one attempt of one task.
public struct TransferRequest: Sendable {
    public var id: Int64
    public var url: String
    /// The user's `header=` lines.
    public var headers: [String]
    /// What we already hold: the partial file is cut back to `stored.offset`
    /// (R51) and the request asks for the rest (R52).
    public var stored: StoredProgress
    public var partialPath: String
    /// Bytes per second; 0 for none.
    public var speedLimit: Int64

    public init(id: Int64, url: String, headers: [String], stored: StoredProgress, partialPath: String, speedLimit: Int64) {
        self.id = id
        self.url = url
        self.headers = headers
        self.stored = stored
        self.partialPath = partialPath
        self.speedLimit = speedLimit
    }
}
