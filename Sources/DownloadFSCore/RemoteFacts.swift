/// What the server said about the file: its validators (R52), its type and
/// where redirects led.
///
/// Set once per response at most, read at every resume, so a task holds
/// them by reference, like `TaskOrigin`: one shared instance for the
/// loop's copy and the published one, and 56 bytes less per task per copy.
public final class RemoteFacts: Sendable, Equatable {
    /// Validators of the data we hold, for If-Range (R52); for FTP the MDTM.
    public let etag: String?
    public let lastModified: String?
    public let contentType: String?
    /// The URL after redirects, once known.
    public let finalURL: String?

    public static let none = RemoteFacts(etag: nil, lastModified: nil, contentType: nil, finalURL: nil)

    public init(etag: String?, lastModified: String?, contentType: String?, finalURL: String?) {
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.finalURL = finalURL
    }

    public static func == (a: RemoteFacts, b: RemoteFacts) -> Bool {
        a === b || (a.etag == b.etag && a.lastModified == b.lastModified && a.contentType == b.contentType
                    && a.finalURL == b.finalURL)
    }
}
