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

    /// The task log's line when a resume is about to be asked for, before
    /// any answer: what is held and how the rest will be asked; whether the
    /// server took it is `resumed`'s line, or a start-over's.
    public func resuming(held: ByteRanges, hasValidator: Bool) -> String {
        let pieces = held.ranges.count
        let what: String
        if pieces == 1, held.ranges[0].lowerBound == 0 {
            what = "resuming from byte \(held.count)"
        } else {
            // A segmented task asks for each hole: no one byte it resumes from.
            what = "resuming: \(held.count) bytes already here in \(pieces) pieces; asking for the rest"
        }
        switch self {
        case .http:
            return hasValidator ? what : what + " by size: the server gave no ETag or Last-Modified"
        case .ftp:
            return hasValidator ? what + " with REST, if the size and modification time (MDTM) are unchanged"
                : what + " with REST, by size: the server gave no modification time (MDTM)"
        }
    }
}
