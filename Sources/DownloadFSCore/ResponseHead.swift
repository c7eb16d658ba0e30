/// The parts of a response's status line and headers that decide how to resume (R52).
public struct ResponseHead: Sendable, Equatable {
    public var status: Int
    public var contentRange: ContentRange?
    public var contentLength: Int64?
    public var etag: String?
    public var lastModified: String?
    /// Retry-After in seconds, for error statuses (see `HeaderValue.retryAfter`).
    public var retryAfter: Double?

    public init(status: Int, contentRange: ContentRange? = nil, contentLength: Int64? = nil,
                etag: String? = nil, lastModified: String? = nil, retryAfter: Double? = nil) {
        self.status = status
        self.contentRange = contentRange
        self.contentLength = contentLength
        self.etag = etag
        self.lastModified = lastModified
        self.retryAfter = retryAfter
    }
}
