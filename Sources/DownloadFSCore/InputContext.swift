/// What parsing `queue/new` needs from outside the core: reading the file a
/// `load-cookies=FILE` line names, and the time (to drop expired cookies).
///
/// Passed in, so the parser stays pure and its tests use a fake file and
/// clock; the filesystem gives it a reader that refuses what a FUSE thread
/// must not open (`CookieFileReader`).
public struct InputContext: Sendable {
    /// The text of the file at an absolute path, or why it cannot be had.
    public var readFile: @Sendable (String) -> Result<String, InputFileProblem>
    /// Seconds since the epoch.
    public var now: @Sendable () -> Int64

    public init(readFile: @escaping @Sendable (String) -> Result<String, InputFileProblem>,
                now: @escaping @Sendable () -> Int64) {
        self.readFile = readFile
        self.now = now
    }

    /// For parsers that read no file: every `load-cookies=` is refused.
    public static let noFiles = InputContext(readFile: { _ in .failure(InputFileProblem(reason: "files cannot be read here")) },
                                             now: { 0 })
}
