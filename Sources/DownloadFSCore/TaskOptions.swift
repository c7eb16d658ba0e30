/// The per-URL options of an aria2 input file that downloadfs understands (R10).
///
/// Stored with the task so a remount resumes it with the same name, headers,
/// checksum and speed limit.
public struct TaskOptions: Sendable, Equatable, Codable {
    /// `out=NAME`: the file name the user asked for, unsanitised.
    public var out: String?
    /// `header=Name: value`, in the order given.
    public var headers: [String]
    /// `checksum=ALGO=HEX`.
    public var checksum: Checksum?
    /// `max-download-limit=RATE` in bytes per second; nil or 0 means none.
    public var maxDownloadLimit: Int64?

    public init(out: String? = nil, headers: [String] = [], checksum: Checksum? = nil, maxDownloadLimit: Int64? = nil) {
        self.out = out
        self.headers = headers
        self.checksum = checksum
        self.maxDownloadLimit = maxDownloadLimit
    }
}
