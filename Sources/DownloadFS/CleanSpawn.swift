import CLinux
import FuseKit
import Glibc

/// Starts a program with a process state of its own rather than the
/// daemon's: descriptors 0–2 only, no blocked signal, every signal at its
/// default action.
///
/// The daemon holds descriptors without close-on-exec that a child must not
/// keep: the socket to fusermount3's auto-unmount watcher (while any process
/// holds it, a killed daemon's mount stays behind, dead) and curl's server
/// connections. It blocks HUP, INT and TERM for its signal thread and
/// ignores SIGPIPE, and a child inherits both: a hook's `sleep` would
/// survive `kill`, and `yes | head` would print "Broken pipe".
enum CleanSpawn {
    /// posix_spawn(3) of `path` with `actions` (which set up 0–2) followed by
    /// closing every descriptor from 3 up. Returns the pid, or the errno.
    static func spawn(_ path: String, arguments: [String], environment: [String],
                      actions: inout posix_spawn_file_actions_t) -> Result<pid_t, Errno> {
        _ = clinux_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        return rc == 0 ? .success(pid) : .failure(Errno(rc))
    }

    /// The environment of this process as `NAME=value` strings.
    static var inheritedEnvironment: [String] {
        var lines = [String]()
        var entry = environ
        while let line = entry.pointee {
            lines.append(String(cString: line))
            entry += 1
        }
        return lines
    }
}

