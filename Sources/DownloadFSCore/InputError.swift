/// A line of `queue/new` input that was rejected (R11).
///
/// The FUSE layer turns it into EINVAL and writes `message` to `MOUNT/log`,
/// so the user learns which line and why.
public struct InputError: Error, Equatable, Sendable {
    /// 1-based line number within everything fed to the parser.
    public let line: Int
    /// Why the line was rejected, e.g. `unsupported scheme "file" (use http, https, ftp or ftps)`.
    public let reason: String

    public init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// `line 3: unsupported scheme "file" (use http, https, ftp or ftps)`.
    public var message: String { "line \(line): \(reason)" }
}
