import CCurl
import DownloadFSCore

/// Process-wide libcurl setup. `curl_global_init` is not thread-safe and
/// must run once in `main` before any thread starts.
public enum Curl {
    public static func globalInit() {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }

    /// Sent with every request; made once, not per connection.
    static let userAgent = "downloadfs/\(ProductVersion.current)"

    /// The protocols downloadfs speaks, for requests and redirects alike (R11, R55).
    static let allowedProtocols = "http,https,ftp,ftps"

    static func describe(_ code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
