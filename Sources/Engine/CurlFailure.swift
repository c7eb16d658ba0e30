import CCurl
import DownloadFSCore
import Foundation

/// Maps libcurl result codes to the failures the retry policy understands.
enum CurlFailure {
    /// `detail` is curl's error buffer for this transfer (often more precise
    /// than the code's text); `ftp` says which protocol's words to use;
    /// `url` is what was asked for (its host names a certificate mismatch,
    /// its proxy a failure to reach one); `proxy` the task's `all-proxy`
    /// (nil: the environment's).
    static func from(_ code: CURLcode, receivedData: Bool, redirects: Int, detail: String = "",
                     ftp: Bool = false, url: String = "", proxy: String? = nil) -> TransferFailure {
        func throughProxy(_ url: String, _ reason: String) -> TransferFailure? {
            Self.throughProxy(url, option: proxy, reason)
        }
        let words = detail.isEmpty ? Curl.describe(code) : detail
        switch code {
        case CURLE_COULDNT_CONNECT: return throughProxy(url, "connection refused") ?? .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST: return .dnsFailure
        case CURLE_COULDNT_RESOLVE_PROXY: return throughProxy(url, "could not resolve its host") ?? .dnsFailure
        case CURLE_PROXY:
            return throughProxy(url, words) ?? .other(code: Int(code.rawValue), message: words)
        case CURLE_RECV_ERROR where detail.contains("CONNECT tunnel"):
            // "CONNECT tunnel failed, response 403": the proxy would not reach the server.
            return throughProxy(url, detail) ?? .connectionReset
        case CURLE_OPERATION_TIMEDOUT:
            // curl reports the low-speed limit (1 KiB/s for 30 s) as a timeout too.
            return receivedData ? .stalled : .timedOut
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING: return .connectionReset
        case CURLE_PARTIAL_FILE: return .partialBody
        case CURLE_TOO_MANY_REDIRECTS: return .tooManyRedirects
        case CURLE_UNSUPPORTED_PROTOCOL where redirects > 0:
            return .forbiddenRedirect("a protocol other than http, https, ftp or ftps")
        case CURLE_UNSUPPORTED_PROTOCOL where detail.contains("HTTP/0.9"):
            // The answer read was no HTTP/1.x head: most often bytes a server
            // sent past an earlier body on a connection curl then reused.
            // The connection's fault, not the URL's (it was checked, R11):
            // transient, and curl has closed that connection.
            return .other(code: Int(code.rawValue),
                          message: "the server's answer was not HTTP (bytes left over on a reused connection)")
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .badURL("unsupported protocol")
        case CURLE_URL_MALFORMAT: return .badURL("malformed URL")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CIPHER:
            return .tls(TLSProblem(curlDetail: words, host: HostKey.name(of: url)))
        case CURLE_LOGIN_DENIED:
            return .refused(ftp ? "the FTP server refused the login: wrong user name or password"
                                : "the server refused the login: wrong user name or password")
        case CURLE_REMOTE_FILE_NOT_FOUND:
            return .refused(ftp ? "the FTP server has no such file" : "the server has no such file")
        case CURLE_REMOTE_ACCESS_DENIED:
            // curl's words for a refused CWD: the directory is missing (or closed to us).
            if ftp && detail.contains("change to the given directory") {
                return .refused("the FTP server has no such directory, or denies access to it")
            }
            return .refused(ftp ? "the FTP server denied access to the file" : "the server denied access")
        case CURLE_OUT_OF_MEMORY where !receivedData && !ftp:
            // curl 7.88 answers a header over its 100 KiB limit with this
            // code and no message; a real lack of memory is far rarer.
            return .headerTooLarge
        default:
            return .other(code: Int(code.rawValue), message: words)
        }
    }

    /// The failure as the proxy's, when curl reached `url` through one: the
    /// task's `option`, else the environment's as curl reads it (read only
    /// on such failures).
    private static func throughProxy(_ url: String, option: String?, _ reason: String) -> TransferFailure? {
        ProxyChoice.proxy(for: url, option: option, environment: ProcessInfo.processInfo.environment)
            .map { .proxy(address: $0.address, reason: reason, source: $0.source) }
    }
}
