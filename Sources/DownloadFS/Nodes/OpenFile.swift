/// An open handle of a file: what `open` or `create` made, kept by
/// `HandleTable` until `release`. Like nodes, handles implement only what
/// they support (`FileReader`, `FileWriter`, `FileFlusher`,
/// `FileReleaser`, `FilePoller`); `DownloadFileSystem` answers the rest.
protocol OpenFile: AnyObject, Sendable {
    /// How the kernel may cache the file's pages.
    var caching: FileCaching { get }
    /// The descriptor the kernel may read the file from by itself (FUSE
    /// passthrough); nil for files whose reads the daemon must answer.
    var backing: Int32? { get }
    /// A stream, like a pipe: no position, no seeking (`OpenedFile.stream`).
    var isStream: Bool { get }
}

extension OpenFile {
    var caching: FileCaching { .none }
    var backing: Int32? { nil }
    var isStream: Bool { false }
}
