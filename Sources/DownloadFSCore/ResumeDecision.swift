/// What to do with a response to a (possibly resumed, possibly segmented) request (R52, R18); pure.
///
/// Given the range that was requested, the progress stored for the task and
/// the head of the server's answer: append to the partial data, start over
/// from zero, declare the download already complete, or fail. Starting over
/// always carries a reason for the task log, because silently refetching is
/// what R52 forbids, and R18 wants the log to say why a segmented task fell
/// back to one connection.
public enum ResumeDecision: Sendable, Equatable {
    /// 206 covering exactly the requested range (or 200/206-from-0 to a plain GET): write the body at the requested start.
    case append(total: Int64?)
    /// Discard the partial data and write from 0. If `bodyStartsAtZero(response)` is false,
    /// this body cannot be used: abort it and request again without a range.
    case startOver(total: Int64?, reason: String)
    /// 416 to an open-ended request whose start already equals the known total.
    case alreadyComplete(total: Int64)
    /// An error status: the task does not get this body (R43).
    case fail(TransferFailure)

    /// A resume from `stored.offset` to the end of the file (R52): the open-ended case of
    /// `decide(requested:stored:response:)`, kept so single-connection callers need not build a range.
    public static func decide(stored: StoredProgress, response: ResponseHead) -> ResumeDecision {
        decide(requested: .from(stored.offset), stored: stored, response: response)
    }

    /// The answer to a request for `requested` (R52 for open ranges, R18 for closed ones).
    ///
    /// `stored` supplies what the task already knows of the file (total and
    /// validators); where the request started is `requested.start`, not
    /// `stored.offset`, because a segment starts at its own place in the file.
    /// A request that sends a Range header depends on that stored knowledge, so
    /// its answer must match it; a plain GET (`bytes=0-`, no header) takes the
    /// file as it comes.
    ///
    /// - 206: the Content-Range must start at `requested.start` and, for a closed
    ///   range, end at `requested.end - 1`; a total or a strong ETag that differs
    ///   from the stored one means the file changed. Any of these starts over.
    /// - 200 (or another 2xx): to a plain GET it is the file; to a ranged request
    ///   the range was ignored or the file changed, so start over from zero.
    /// - 416: done when an open range starts exactly at the known total; for a
    ///   closed range (or any other start) the file is not what we think: start over.
    /// - anything else fails the transfer (R43).
    public static func decide(requested: RequestedRange, stored: StoredProgress, response: ResponseHead) -> ResumeDecision {
        let status = response.status
        let ranged = !requested.isWholeFile

        if status == 416 {
            if requested.end == nil, requested.start > 0,
               let known = stored.total ?? response.contentRange?.total, requested.start == known,
               response.contentRange?.total == nil || response.contentRange?.total == known {
                return .alreadyComplete(total: known)
            }
            return .startOver(total: response.contentRange?.total,
                              reason: "server refused the range \(requested.spec) (416)")
        }
        if status == 206 {
            guard let range = response.contentRange, let start = range.start else {
                return .startOver(total: nil, reason: "206 without a usable Content-Range")
            }
            if let end = requested.end, start != requested.start || range.end != end - 1 {
                return .startOver(total: range.total,
                                  reason: "Content-Range \(describe(range)) does not match the request \(requested.spec)")
            }
            if start != requested.start {
                return .startOver(total: range.total, reason: "Content-Range starts at \(start), expected \(requested.start)")
            }
            if ranged, let old = stored.etag, let new = response.etag,
               HeaderValue.isStrongETag(old), HeaderValue.isStrongETag(new),
               old.trimmingSpacesAndTabs() != new.trimmingSpacesAndTabs() {
                // Only strong ETags identify the bytes; a weak one may differ for the same content.
                return .startOver(total: range.total,
                                  reason: "file changed on the server (ETag \(old.trimmingSpacesAndTabs()) → \(new.trimmingSpacesAndTabs()))")
            }
            if ranged, let old = stored.total, let new = range.total, old != new {
                return .startOver(total: new, reason: "file changed on the server (total \(old) → \(new))")
            }
            return .append(total: range.total ?? (ranged ? stored.total : nil))
        }
        if (200...299).contains(status) {
            let total = response.contentLength
            if !ranged {
                return .append(total: total)
            }
            return .startOver(total: total, reason: changeReason(requested: requested, stored: stored, response: response))
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

    /// Headers for a resume from `stored.offset` (R52): the open-ended case of `requestHeaders(for:range:)`.
    ///
    /// Without a validator only `Range` is sent; the caller logs "resuming by size: no validator".
    public static func requestHeaders(for stored: StoredProgress) -> [String] {
        requestHeaders(for: stored, range: .from(stored.offset))
    }

    /// Headers for a request of `range`: `Range: bytes=A-B` or `bytes=A-`, plus `If-Range`
    /// with a strong ETag, else Last-Modified (R52, and R18 for each segment).
    ///
    /// None for the whole file: a plain GET has nothing to be conditional on.
    /// `If-Range` rides along with every Range so that a changed file answers 200
    /// rather than splicing new bytes onto old ones.
    public static func requestHeaders(for stored: StoredProgress, range: RequestedRange) -> [String] {
        guard let spec = range.header else { return [] }
        var headers = ["Range: \(spec)"]
        if let validator = ifRangeValidator(stored) {
            headers.append("If-Range: \(validator)")
        }
        return headers
    }

    /// Whether a resume can be conditional (strong ETag or Last-Modified stored).
    public static func hasValidator(_ stored: StoredProgress) -> Bool {
        ifRangeValidator(stored) != nil
    }

    /// The If-Range value: a strong ETag (a weak one is not allowed there), else Last-Modified, else nil.
    private static func ifRangeValidator(_ stored: StoredProgress) -> String? {
        if let etag = stored.etag, HeaderValue.isStrongETag(etag) {
            return etag.trimmingSpacesAndTabs()
        }
        if let lastModified = stored.lastModified, !lastModified.trimmingSpacesAndTabs().isEmpty {
            return lastModified.trimmingSpacesAndTabs()
        }
        return nil
    }

    /// A Content-Range as the server wrote it, for log messages: `bytes 0-99/1000`.
    private static func describe(_ range: ContentRange) -> String {
        func part(_ n: Int64?) -> String { n.map(String.init) ?? "*" }
        return "bytes \(part(range.start))-\(part(range.end))/\(part(range.total))"
    }

    /// Why a 2xx other than 206 came back to a ranged request, as precisely as the headers allow.
    ///
    /// A changed validator or size explains it best. Otherwise the range was
    /// ignored; a closed range from 0 that stops short of the total says so
    /// explicitly, since its body is usable but the server cannot serve segments (R18).
    private static func changeReason(requested: RequestedRange, stored: StoredProgress, response: ResponseHead) -> String {
        if let old = stored.etag, let new = response.etag, old != new {
            return "file changed on the server (ETag \(old) → \(new))"
        }
        if let old = stored.lastModified, let new = response.lastModified, old != new {
            return "file changed on the server (Last-Modified \(old) → \(new))"
        }
        if let old = stored.total, let new = response.contentLength, old != new {
            return "file changed on the server (total \(old) → \(new))"
        }
        if requested.start == 0, let end = requested.end, let total = stored.total ?? response.contentLength, end < total {
            return "the server ignores ranges (\(response.status) to \(requested.spec))"
        }
        return "server ignored the range (\(response.status))"
    }
}
