import Foundation
import Glibc

/// The daemon's descriptor budget. Every file open in `files/` through
/// FUSE passthrough holds one of the daemon's descriptors for as long as
/// the reader keeps it, beside each transfer's data file and sockets; the
/// soft limit a shell hands down (often 1,024) runs out under an ordinary
/// `mpv`-plus-`rsync` load, and then downloads could not open their data
/// and libdispatch's worker monitor, unable to open /proc, stops the
/// process. So the daemon raises its soft limit to the hard limit at start,
/// as daemons do (the hard limit is the administrator's word; systemd's
/// default is 524,288).
enum DescriptorLimit {
    /// Raises the soft RLIMIT_NOFILE to the hard limit (capped by
    /// /proc/sys/fs/nr_open, above which the kernel refuses any value).
    /// Returns the soft limit in force afterwards.
    @discardableResult
    static func raiseToHard() -> rlim_t {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        var wanted = limit.rlim_max
        if let text = try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8),
           let ceiling = rlim_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            wanted = min(wanted, ceiling)
        }
        guard wanted > limit.rlim_cur else { return limit.rlim_cur }
        var raised = limit
        raised.rlim_cur = wanted
        return setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 ? wanted : limit.rlim_cur
    }
}
