/// What to do with a response to a (possibly resumed) request (R52); pure.
///
/// Given the progress stored for the task and the head of the server's
/// answer: append to the partial data, start over from zero, declare the
/// download already complete, or fail. Starting over always carries a reason
/// for the task log, because silently refetching is what R52 forbids.
public enum ResumeDecision: Sendable, Equatable {
    /// 206 starting at the stored offset (or 200/206-from-0 on a fresh download): write the body at the offset.
    case append(total: Int64?)
    /// Discard the partial data and write from 0. If `bodyStartsAtZero(response)` is false,
    /// this body cannot be used: abort it and request again without a range.
    case startOver(total: Int64?, reason: String)
    /// 416 when the stored offset already equals the known total.
    case alreadyComplete(total: Int64)
    /// An error status: the task does not get this body (R43).
    case fail(TransferFailure)

    public static func decide(stored: StoredProgress, response: ResponseHead) -> ResumeDecision {
        let offset = max(0, stored.offset)
        let status = response.status

        if status == 416 {
            if offset > 0, let known = stored.total ?? response.contentRange?.total, offset == known,
               response.contentRange?.total == nil || response.contentRange?.total == known {
                return .alreadyComplete(total: known)
            }
            return .startOver(total: response.contentRange?.total,
                              reason: "server refused the range bytes=\(offset)- (416)")
        }
        if status == 206 {
            guard let range = response.contentRange, let start = range.start else {
                return .startOver(total: nil, reason: "206 without a usable Content-Range")
            }
            let total = range.total ?? (offset > 0 ? stored.total : nil)
            if start != offset {
                return .startOver(total: range.total, reason: "Content-Range starts at \(start), expected \(offset)")
            }
            if offset > 0, let old = stored.total, let new = range.total, old != new {
                return .startOver(total: new, reason: "file changed on the server (total \(old) → \(new))")
            }
            return .append(total: total)
        }
        if (200...299).contains(status) {
            let total = response.contentLength
            if offset == 0 {
                return .append(total: total)
            }
            return .startOver(total: total, reason: changeReason(stored: stored, response: response))
        }
        return .fail(.http(status: status, retryAfter: response.retryAfter))
    }

    /// FTP (R52): a resume is `REST offset`; the remote size (SIZE) and
    /// modification time (MDTM) are the validators. `remaining` is what the
    /// server said is left to send (the size minus `offset`), `modified` the
    /// MDTM as an HTTP-date. A start-over from a non-zero offset can never use
    /// the body (it begins at the offset): the caller asks again from zero.
    public static func decideFTP(stored: StoredProgress, remaining: Int64?, modified: String?) -> ResumeDecision {
        let offset = max(0, stored.offset)
        let total = remaining.map { offset + $0 }
        guard offset > 0 else { return .append(total: total) }
        if let old = stored.lastModified, let new = modified, old != new {
            return .startOver(total: nil, reason: "file changed on the FTP server (modification time \(old) → \(new))")
        }
        if let old = stored.total, let new = total, old != new {
            return .startOver(total: nil, reason: "file changed on the FTP server (size \(old) → \(new))")
        }
        return .append(total: total ?? stored.total)
    }

    /// True when the body of `response` begins with byte 0 of the file, so a start-over can use it.
    public static func bodyStartsAtZero(_ response: ResponseHead) -> Bool {
        switch response.status {
        case 206: return response.contentRange?.start == 0
        case 200...299: return true
        default: return false
        }
    }

    /// Headers for the request: `Range: bytes=N-` plus `If-Range` with a strong ETag, else Last-Modified.
    ///
    /// Without a validator only `Range` is sent; the caller logs "resuming by size: no validator".
    public static func requestHeaders(for stored: StoredProgress) -> [String] {
        guard stored.offset > 0 else { return [] }
        var headers = ["Range: bytes=\(stored.offset)-"]
        if let etag = stored.etag, HeaderValue.isStrongETag(etag) {
            headers.append("If-Range: \(etag.trimmingSpacesAndTabs())")
        } else if let lastModified = stored.lastModified, !lastModified.trimmingSpacesAndTabs().isEmpty {
            headers.append("If-Range: \(lastModified.trimmingSpacesAndTabs())")
        }
        return headers
    }

    /// Whether a resume can be conditional (strong ETag or Last-Modified stored).
    public static func hasValidator(_ stored: StoredProgress) -> Bool {
        requestHeaders(for: StoredProgress(offset: 1, etag: stored.etag, lastModified: stored.lastModified)).count == 2
    }

    /// Why a 200 came back to a ranged request, as precisely as the headers allow.
    private static func changeReason(stored: StoredProgress, response: ResponseHead) -> String {
        if let old = stored.etag, let new = response.etag, old != new {
            return "file changed on the server (ETag \(old) → \(new))"
        }
        if let old = stored.lastModified, let new = response.lastModified, old != new {
            return "file changed on the server (Last-Modified \(old) → \(new))"
        }
        if let old = stored.total, let new = response.contentLength, old != new {
            return "file changed on the server (total \(old) → \(new))"
        }
        return "server ignored the range (\(response.status))"
    }
}
