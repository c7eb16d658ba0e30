/// The answer to `open`/`create`: a handle chosen by the filesystem and how
/// the kernel should cache the file's pages.
public struct OpenedFile: Sendable, Equatable {
    /// Opaque to FuseKit; comes back in read/write/flush/release.
    public var handle: UInt64
    /// Bypass the page cache: every read reaches us (live files, R7).
    public var directIO: Bool
    /// Keep cached pages across opens (immutable, completed files).
    public var keepCache: Bool
    /// The kernel need not send FLUSH at close(2) (FOPEN_NOFLUSH, Linux 5.16+;
    /// older kernels ignore it): one round trip less per `cat` of a file
    /// whose close has nothing to report.
    public var noFlush: Bool
    /// A descriptor of the same data the kernel may read by itself (FUSE
    /// passthrough, `PassthroughFiles`); where it cannot, reads come to us.
    /// The filesystem keeps it open until `release`.
    public var backing: Int32?
    /// A stream, like a pipe: no position, offsets mean nothing, lseek,
    /// pread and pwrite fail with ESPIPE (FOPEN_NONSEEKABLE, and
    /// FOPEN_STREAM where the session's hooks can add it, so two reads of
    /// one open file do not queue on its position lock). Without it, a
    /// reader that reads ahead and seeks back to a line's end — bash's
    /// `read` builtin on a regular file — would lose what it gave back.
    public var stream: Bool

    public init(handle: UInt64, directIO: Bool = false, keepCache: Bool = false, noFlush: Bool = false,
                backing: Int32? = nil, stream: Bool = false) {
        self.handle = handle
        self.directIO = directIO
        self.keepCache = keepCache
        self.noFlush = noFlush
        self.backing = backing
        self.stream = stream
    }
}
