/// An open handle of a file: what `open` or `create` made, kept by
/// `HandleTable` until `release`. Like nodes, handles implement only what
/// they support (`FileReader`, `FileWriter`, `FileFlusher`,
/// `FileReleaser`); `DownloadFileSystem` answers the rest.
protocol OpenFile: AnyObject, Sendable {
    /// How the kernel may cache the file's pages.
    var caching: FileCaching { get }
}

extension OpenFile {
    var caching: FileCaching { .none }
}
