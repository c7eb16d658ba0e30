import DownloadFSCore

/// Which certificate authorities https and ftps connections trust (R55).
///
/// The system store is the default (Debian: /etc/ssl/certs, kept by
/// `update-ca-certificates`). `--ca-certificate FILE` adds FILE: curl
/// takes it as its CA file and keeps the system directory as its CA path,
/// so both are trusted. Without it, OpenSSL's own variables are honoured
/// as the curl tool does — `SSL_CERT_FILE` for the file, `SSL_CERT_DIR`
/// for the directory — which libcurl alone would ignore.
public struct TLSTrust: Sendable, Equatable {
    /// CURLOPT_CAINFO; nil keeps libcurl's built-in bundle.
    public var caFile: String?
    /// CURLOPT_CAPATH; nil keeps libcurl's built-in directory.
    public var caDirectory: String?

    public static let system = TLSTrust(caFile: nil, caDirectory: nil)

    public init(caFile: String?, caDirectory: String?) {
        self.caFile = caFile
        self.caDirectory = caDirectory
    }

    /// `caCertificate` is the mount's option; `environment` the daemon's.
    public init(caCertificate: String?, environment: [String: String]) {
        self.init(caFile: caCertificate ?? EnvironmentSetting.value("SSL_CERT_FILE", in: environment),
                  caDirectory: EnvironmentSetting.value("SSL_CERT_DIR", in: environment))
    }
}
