/// One URL line read from `queue/new`, with its options, ready to become a task (R10).
public struct InputEntry: Sendable, Equatable {
    /// The first URL exactly as written (trailing blanks removed): the task's `url`.
    public let url: String
    /// The line's other URLs, TAB-separated after the first: mirrors of the
    /// same file (R19), in the order given, duplicates of an earlier URL on
    /// the line (after normalisation, R13) left out.
    public let mirrors: [String]
    public let options: TaskOptions
    /// 1-based line number of the URL within everything fed to the parser, for the log.
    public let line: Int

    public init(url: String, mirrors: [String] = [], options: TaskOptions = TaskOptions(), line: Int) {
        self.url = url
        self.mirrors = mirrors
        self.options = options
        self.line = line
    }

    /// Every URL of the line, the first one first.
    public var urls: [String] { [url] + mirrors }
}
