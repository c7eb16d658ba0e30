/// Where the proxy a transfer went through was set (R10, R55): named in the
/// error when it cannot be reached, so the user knows what to change.
public enum ProxySource: Sendable, Equatable {
    /// `http_proxy`, `https_proxy`, `all_proxy` (and their uppercase forms) of the daemon's environment.
    case environment
    /// The task's `all-proxy=URL`.
    case option
}
