import DownloadFSCore
import Foundation
import FuseKit
import Glibc

extension RequestCaller {
    /// The process of the calling thread (its thread group, from
    /// `/proc/TID/status`): the kernel names a request's caller by thread,
    /// and one process's threads are one writer to `queue/new` (R11). The
    /// thread id itself when it cannot be read, 0 for a caller outside the
    /// daemon's pid namespace.
    var process: pid_t {
        guard pid > 0 else { return 0 }
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let status = ProcessStatus(text: text) else { return pid }
        return status.threadGroup
    }
}
