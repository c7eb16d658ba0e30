import DownloadFSCore

/// The parts of the final response (after redirects) the daemon keeps.
public struct ResponseSummary: Sendable, Equatable {
    public var head: ResponseHead
    public var contentType: String?
    public var contentDisposition: String?
    public var retryAfter: String?
    /// The URL after redirects (R17 takes the name from it).
    public var effectiveURL: String
}
