/// What went wrong with one transfer attempt; the engine maps curl results onto it.
///
/// Each case knows the sentence the user reads in `status` (R20) and whether
/// it is worth retrying (R53), so the retry policy and the status file cannot
/// disagree about an error.
public enum TransferFailure: Error, Sendable, Equatable {
    /// The server answered with an error status; `retryAfter` is its Retry-After in seconds.
    case http(status: Int, retryAfter: Double?)
    // Transient network trouble (R53).
    case connectionRefused, connectionReset, timedOut, partialBody, dnsFailure, stalled
    /// The proxy — the task's `all-proxy`, or the one curl took from the
    /// environment (`ProxyChoice`) — could not be reached or refused the
    /// tunnel: said so, since the URL is not at fault.
    case proxy(address: String, reason: String, source: ProxySource)
    // Permanent for this URL (R55).
    case tooManyRedirects, forbiddenRedirect(String), tls(TLSProblem), badURL(String)
    /// The server refused the request for good, in words per protocol
    /// ("the FTP server refused the login: wrong user name or password").
    case refused(String)
    /// A response header over what curl accepts (100 KiB): a broken or
    /// hostile server, which sends the same again on a retry.
    case headerTooLarge
    /// Writing the data failed locally (R54): the task fails and can be
    /// resumed later — except when the daemon or the system is out of
    /// descriptors (`outOfDescriptors`), which passes as readers close
    /// their files: that retries (R53).
    case writeError(errno: Int32, message: String)
    /// Anything else curl reported, in curl's words; treated as transient.
    case other(code: Int, message: String)

    /// HTTP statuses that are worth retrying (R53).
    public static let transientHTTPStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The sentence for `status`: "HTTP 404 Not Found", "connection reset", "No space left on device".
    public var message: String {
        switch self {
        case .http(let status, _):
            let phrase = HTTPStatus.reasonPhrase(status)
            return phrase.isEmpty ? "HTTP \(status)" : "HTTP \(status) \(phrase)"
        case .connectionRefused: return "connection refused"
        case .connectionReset: return "connection reset"
        case .timedOut: return "connection timed out"
        case .partialBody: return "connection closed before the body was complete"
        case .dnsFailure: return "could not resolve host"
        case .proxy(let address, let reason, .environment):
            return "proxy \(address): \(reason) (set by http_proxy, https_proxy or all_proxy; no_proxy lists hosts that go direct)"
        case .proxy(let address, let reason, .option):
            return "proxy \(address): \(reason) (set by the task's all-proxy option)"
        case .stalled: return "transfer stalled (slower than 1 KiB/s for 30 s)"
        case .tooManyRedirects: return "too many redirects (more than 10)"
        case .forbiddenRedirect(let scheme): return "redirect to a forbidden scheme: \(scheme)"
        case .tls(let problem): return problem.message
        case .badURL(let detail): return detail.isEmpty ? "bad URL" : "bad URL: \(detail)"
        case .refused(let sentence): return sentence
        case .headerTooLarge: return "the server sent a response header over 100 KiB, more than downloadfs accepts"
        case .writeError(TransferFailure.processOutOfDescriptors, _):
            return "too many files open in downloadfs (each file open in files/ holds one until closed)"
        case .writeError(TransferFailure.systemOutOfDescriptors, _):
            return "too many files open on this system"
        case .writeError(let errno, let message): return message.isEmpty ? "write error (errno \(errno))" : message
        case .other(let code, let message): return message.isEmpty ? "transfer error (curl code \(code))" : message
        }
    }

    /// R53: network trouble, curl's other errors and HTTP 408, 429, 500, 502, 503, 504.
    public var isTransient: Bool {
        switch self {
        case .http(let status, _): return TransferFailure.transientHTTPStatuses.contains(status)
        case .connectionRefused, .connectionReset, .timedOut, .partialBody, .dnsFailure, .stalled, .proxy, .other:
            return true
        case .writeError(let errno, _): return TransferFailure.outOfDescriptors.contains(errno)
        case .tooManyRedirects, .forbiddenRedirect, .tls, .badURL, .refused, .headerTooLarge:
            return false
        }
    }

    /// EMFILE: the daemon's descriptors are all in use.
    public static let processOutOfDescriptors: Int32 = 24
    /// ENFILE: the system's file table is full.
    public static let systemOutOfDescriptors: Int32 = 23
    /// Errors of opening the data that are no fault of the disk or the
    /// server, and pass once files are closed.
    public static let outOfDescriptors: Set<Int32> = [processOutOfDescriptors, systemOutOfDescriptors]

    /// A write failed for want of room (ENOSPC, or EDQUOT: over quota):
    /// the task's untrusted bytes are given back (R51, R54), and the user
    /// is told to free some space.
    public var isDiskFull: Bool {
        guard case .writeError(let code, _) = self else { return false }
        return code == 28 /* ENOSPC */ || code == 122 /* EDQUOT */
    }

    /// The server's Retry-After, when it sent one.
    public var retryAfter: Double? {
        if case .http(_, let retryAfter) = self { return retryAfter }
        return nil
    }
}
