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

    /// Speed limits are set separately (`Engine.setSpeedLimit`), since they
    /// change while a transfer runs.
    public init(id: Int64, url: String, headers: [String], stored: StoredProgress, partialPath: String) {
        self.id = id
        self.url = url
        self.headers = headers
        self.stored = stored
        self.partialPath = partialPath
    }
}
