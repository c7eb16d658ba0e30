/// One URL read from `queue/new`, with its options, ready to become a task (R10).
public struct InputEntry: Sendable, Equatable {
    /// The URL exactly as written (trailing blanks removed).
    public let url: String
    public let options: TaskOptions
    /// 1-based line number of the URL within everything fed to the parser, for the log.
    public let line: Int

    public init(url: String, options: TaskOptions = TaskOptions(), line: Int) {
        self.url = url
        self.options = options
        self.line = line
    }
}
