/// What the catalog remembers of a partial download, for resuming it (R51, R52).
public struct StoredProgress: Sendable, Equatable {
    /// Bytes safely on disk (fdatasync'd before being committed).
    public var offset: Int64
    public var total: Int64?
    /// The ETag the server sent, as sent (a weak one keeps its `W/`).
    public var etag: String?
    public var lastModified: String?

    public init(offset: Int64, total: Int64? = nil, etag: String? = nil, lastModified: String? = nil) {
        self.offset = offset
        self.total = total
        self.etag = etag
        self.lastModified = lastModified
    }
}
