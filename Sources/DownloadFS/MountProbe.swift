import Foundation
import Glibc

/// Asks, with a deadline, whether the daemon behind a FUSE mount answers.
///
/// A request to a stopped or hung daemon blocks its caller, and once the
/// daemon has read it the wait cannot even be killed: a thread of ours
/// would then keep `unmount` from exiting (R3). So the question is asked
/// by a forked child, which does nothing but `open` the mount's root
/// (FUSE_OPENDIR always reaches the daemon; nothing caches it) and exit.
/// A child still waiting at the deadline is killed and left behind; the
/// kernel ends it when the mount goes.
public enum MountProbe {
    /// What the kernel said about the mount's root.
    public enum Answer: Equatable, Sendable {
        case opened
        /// An error, such as ENOTCONN from a mount whose daemon is dead.
        case failed(errno: Int32)
        /// Nothing within the deadline: a stopped or hung daemon.
        case silent
    }

    /// True if the kernel answered within `seconds`, with success or an
    /// error (a dead mount answers ENOTCONN at once): only a daemon that
    /// keeps the request waiting counts as not answering.
    public static func answers(_ mountpoint: String, within seconds: Double) -> Bool {
        ask(mountpoint, within: seconds) != .silent
    }

    /// Opens the mount's root in a child and reports how that went. The
    /// kernel may answer `stat` of a dead mount's root from its attribute
    /// cache; an open always goes to the daemon, so a dead one shows.
    public static func ask(_ mountpoint: String, within seconds: Double) -> Answer {
        // Everything the child needs is made before fork: it only calls
        // open and _exit, which are safe in the child of a threaded process.
        guard let path = strdup(mountpoint) else { return .opened }
        defer { free(path) }
        let pid = fork()
        if pid == 0 {
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            _exit(fd >= 0 ? 0 : min(errno, 255))
        }
        guard pid > 0 else { return .opened }
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                let code = (status >> 8) & 0xFF
                return status & 0x7F == 0 && code != 0 ? .failed(errno: code) : .opened
            }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        var tries = 0
        while waitpid(pid, &status, WNOHANG) == 0 && tries < 10 {
            usleep(10_000)
            tries += 1
        }
        return .silent
    }
}
