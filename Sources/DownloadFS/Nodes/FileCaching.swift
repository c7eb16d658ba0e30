/// How the kernel may cache an open file's pages.
enum FileCaching: Sendable {
    /// None (`direct_io`): every read reaches the daemon, so live files are
    /// fresh (R7) and a growing data file never shows a hole (R23).
    case none
    /// Pages are kept across opens (`keep_cache`): the file is immutable
    /// (a completed download, R40 speed).
    case keep
}
