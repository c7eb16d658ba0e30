/// The parts of the final response (after redirects) the daemon keeps.
public struct ResponseSummary: Sendable, Equatable {
    public var head: ResponseHead
    public var contentType: String?
    public var contentDisposition: String?
    public var retryAfter: String?
    /// The URL after redirects (R17 takes the name from it).
    public var effectiveURL: String

    public init(head: ResponseHead, contentType: String? = nil, contentDisposition: String? = nil,
                retryAfter: String? = nil, effectiveURL: String) {
        self.head = head
        self.contentType = contentType
        self.contentDisposition = contentDisposition
        self.retryAfter = retryAfter
        self.effectiveURL = effectiveURL
    }
}
