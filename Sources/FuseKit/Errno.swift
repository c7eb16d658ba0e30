import Glibc

/// An errno value returned to the kernel.
///
/// Filesystem code throws these; they turn into `fuse_reply_err` only in
/// `LowLevelBridge`, the one place that speaks the kernel protocol.
public struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public init(_ code: Int32) { self.code = code }

    public static let noEntry = Errno(ENOENT)
    public static let accessDenied = Errno(EACCES)
    public static let notPermitted = Errno(EPERM)
    public static let invalid = Errno(EINVAL)
    public static let exists = Errno(EEXIST)
    public static let isDirectory = Errno(EISDIR)
    public static let notDirectory = Errno(ENOTDIR)
    public static let notEmpty = Errno(ENOTEMPTY)
    public static let io = Errno(EIO)
    public static let noAttribute = Errno(ENODATA)
    public static let rangeTooSmall = Errno(ERANGE)
    public static let interrupted = Errno(EINTR)
    public static let notSupported = Errno(ENOTSUP)
    public static let badHandle = Errno(EBADF)
    public static let crossDevice = Errno(EXDEV)
    public static let wouldBlock = Errno(EAGAIN)
    public static let notConnected = Errno(ENOTCONN)

    /// A file the daemon serves could not be opened on its side with
    /// `code`: out of descriptors is said as such (EMFILE, ENFILE — the
    /// reader's program knows those and may close files and retry), any
    /// other cause is the daemon's storage failing (EIO).
    public static func opening(_ code: Int32) -> Errno {
        code == EMFILE || code == ENFILE ? Errno(code) : .io
    }

    public var description: String { String(cString: strerror(code)) }
}
