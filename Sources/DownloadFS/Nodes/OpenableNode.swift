import FuseKit
import Glibc

/// A file that can be opened. `DownloadFileSystem` checks the access asked
/// for against `permissions` before calling `open` — as well as the
/// kernel's `default_permissions` does, since root bypasses mode bits (R6):
/// reading needs the owner's read bit, writing or `O_TRUNC` the write bit.
protocol OpenableNode: Node {
    /// The permission bits `stat` shows (0o444, 0o200, 0o644).
    var permissions: mode_t { get }
    /// A new handle; each open is fresh (R7).
    func open() throws(Errno) -> any OpenFile
    /// The same, for a file whose handle cares which process opened it
    /// (`queue/new`: its opener's close ends the input, R11).
    func open(by caller: RequestCaller) throws(Errno) -> any OpenFile
}

extension OpenableNode {
    func open(by caller: RequestCaller) throws(Errno) -> any OpenFile { try open() }
}
