/// The protocol family of a URL, for what differs between them: how a
/// resume is asked for and answered, and the words the task log uses (R52).
public enum TransferProtocol: Sendable, Equatable {
    case http, ftp

    /// ftp:// and ftps:// are FTP; everything else downloadfs accepts is HTTP.
    public init(url: String) {
        let lower = url.prefix(7).lowercased()
        self = lower.hasPrefix("ftp://") || lower.hasPrefix("ftps://") ? .ftp : .http
    }

    /// The task log's line for a resume the server accepted.
    public func resumed(at offset: Int64, status: Int) -> String {
        switch self {
        case .http: return "server resumed at byte \(offset) (HTTP \(status))"
        case .ftp: return "FTP server resumed at byte \(offset) (REST)"
        }
    }

    /// The task log's line when a resume is asked for.
    public func resuming(from offset: Int64, hasValidator: Bool) -> String {
        switch self {
        case .http:
            return hasValidator ? "resuming from byte \(offset)"
                : "resuming from byte \(offset) by size: the server gave no ETag or Last-Modified"
        case .ftp:
            return hasValidator ? "resuming from byte \(offset) with REST (checked against the size and modification time)"
                : "resuming from byte \(offset) with REST, by size: the server gave no modification time (MDTM)"
        }
    }
}
