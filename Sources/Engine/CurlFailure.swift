import CCurl
import DownloadFSCore

/// Maps libcurl result codes to the failures the retry policy understands.
enum CurlFailure {
    static func from(_ code: CURLcode, receivedData: Bool, redirects: Int) -> TransferFailure {
        switch code {
        case CURLE_COULDNT_CONNECT: return .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .dnsFailure
        case CURLE_OPERATION_TIMEDOUT:
            // curl reports the low-speed limit (1 KiB/s for 30 s) as a timeout too.
            return receivedData ? .stalled : .timedOut
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING: return .connectionReset
        case CURLE_PARTIAL_FILE: return .partialBody
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        case CURLE_UNSUPPORTED_PROTOCOL:
            return redirects > 0 ? .forbiddenRedirect("a protocol other than http, https, ftp or ftps")
                                 : .badURL("unsupported protocol")
        case CURLE_URL_MALFORMAT: return .badURL("malformed URL")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CIPHER:
            return .tls(Curl.describe(code))
        case CURLE_REMOTE_FILE_NOT_FOUND: return .badURL("the server has no such file")
        case CURLE_REMOTE_ACCESS_DENIED, CURLE_LOGIN_DENIED: return .badURL("the server denied access")
        default: return .other(code: Int(code.rawValue), message: Curl.describe(code))
        }
    }
}
