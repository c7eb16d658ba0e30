import Foundation
import Glibc

/// Starts the daemon as a detached child and waits for it to report that
/// the mount is ready ("ok" on fd 3, sent once the kernel's FUSE handshake
/// is done) or why it is not (R1, R2).
enum BackgroundLauncher {
    /// The descriptor on which a daemon child writes "ok" or its error.
    static let reportFD: Int32 = 3

    static func launch(arguments: [String]) -> Int32 {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0, fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC) == 0,
              fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC) == 0 else {
            FileHandle.standardError.write(Data("downloadfs: mount: cannot create a pipe\n".utf8))
            return 1
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The child reports on fd 3 (made close-on-exec at once, so helpers
        // such as fusermount3 do not keep the pipe open); its own output goes
        // to STATE/daemon.log.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Both ends are close-on-exec; dup2 makes an inheritable copy on fd 3.
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], BackgroundLauncher.reportFD)
        let argv = ["downloadfs"] + arguments + ["--foreground", "--daemon-child"]
        let cArgv = argv.map { strdup($0) } + [nil]
        defer { cArgv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/proc/self/exe", &actions, nil, cArgv, environ)
        close(pipeFDs[1])
        guard rc == 0 else {
            close(pipeFDs[0])
            FileHandle.standardError.write(Data("downloadfs: mount: cannot start the daemon: \(String(cString: strerror(rc)))\n".utf8))
            return 1
        }
        // Its one line (ready, or why not), or none: it died, or hung.
        let said = ReportPipe.firstLine(of: pipeFDs[0], within: 60)
        close(pipeFDs[0])
        if said == "ok" { return 0 }
        var status: Int32 = 0
        waitpid(pid, &status, WNOHANG)
        FileHandle.standardError.write(Data((said.flatMap { $0.isEmpty ? nil : $0 }
            ?? "downloadfs: mount: the daemon exited before the mount was ready").utf8 + [10]))
        return 1
    }
}
