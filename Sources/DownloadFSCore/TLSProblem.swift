/// Why a server's TLS certificate was not trusted (R55), read from curl's
/// error buffer (OpenSSL's words, e.g. "SSL certificate problem: unable to
/// get local issuer certificate") so the user reads the cause, not curl's
/// one text for every cause ("SSL peer certificate or SSH remote key was
/// not OK").
public enum TLSProblem: Sendable, Equatable {
    case selfSigned
    /// Signed by a CA this machine does not trust (or the server left out an intermediate).
    case unknownIssuer
    case nameMismatch(host: String)
    case expired
    case notYetValid
    case revoked
    /// Anything else, in curl's words: a failed handshake, a bad CA file.
    case other(String)

    /// `detail` is curl's error buffer; `host` the URL's host, named when
    /// curl's words do not quote it.
    public init(curlDetail detail: String, host: String) {
        let text = detail.lowercased()
        if text.contains("self-signed certificate in certificate chain")
            || text.contains("self signed certificate in certificate chain")
            || text.contains("unable to get local issuer certificate")
            || text.contains("unable to get issuer certificate")
            || text.contains("unable to verify the first certificate") {
            // A chain ending in a self-signed root nobody here trusts is an unknown issuer too.
            self = .unknownIssuer
        } else if text.contains("self-signed certificate") || text.contains("self signed certificate") {
            self = .selfSigned
        } else if text.contains("target host name") {
            self = .nameMismatch(host: TLSProblem.lastQuoted(detail) ?? host)
        } else if text.contains("certificate has expired") {
            self = .expired
        } else if text.contains("certificate is not yet valid") {
            self = .notYetValid
        } else if text.contains("certificate revoked") {
            self = .revoked
        } else {
            self = .other(detail)
        }
    }

    public var message: String {
        let fix = "trust its CA with --ca-certificate FILE (or the system store) if you expect it"
        switch self {
        case .selfSigned: return "TLS: the server's certificate is self-signed; \(fix)"
        case .unknownIssuer: return "TLS: the server's certificate is from an unknown issuer; \(fix)"
        case .nameMismatch(let host):
            return "TLS: the server's certificate name does not match \(host); use the host name the certificate is for"
        case .expired: return "TLS: the server's certificate has expired"
        case .notYetValid: return "TLS: the server's certificate is not valid yet (is this machine's clock right?)"
        case .revoked: return "TLS: the server's certificate was revoked"
        case .other(let detail): return detail.isEmpty ? "TLS error" : "TLS error: \(detail)"
        }
    }

    /// The last 'quoted' part of curl's words: the host name it checked.
    private static func lastQuoted(_ detail: String) -> String? {
        let parts = detail.split(separator: "'", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let quoted = parts[parts.count - 2]
        return quoted.isEmpty ? nil : String(quoted)
    }
}
