import CFuse
import Glibc

/// Who sent a request: the id of the thread whose system call it is, as
/// the kernel gives it with every FUSE request (`fuse_req_ctx`'s `pid`).
/// For a single-threaded writer (`echo`, a `downloadfs` client command)
/// it is the process's id. 0 when the caller is outside the daemon's pid
/// namespace.
///
/// A filesystem names the writer in what it logs about a refused write, so
/// that each of several clients refused at once finds its own reason.
public struct RequestCaller: Sendable, Equatable {
    public let pid: pid_t

    public init(pid: pid_t) { self.pid = pid }

    init(_ request: fuse_req_t?) {
        pid = request.flatMap { fuse_req_ctx($0)?.pointee.pid } ?? 0
    }
}
