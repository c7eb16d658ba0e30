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
        // Read until the child closes the pipe (ready, or dead), with a deadline.
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            var fds = pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, 500)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let n = read(pipeFDs[0], &buffer, buffer.count)
            if n <= 0 { break }
            output += buffer[..<n]
            if output.starts(with: Array("ok\n".utf8)) { break }
        }
        close(pipeFDs[0])
        let text = String(decoding: output, as: UTF8.self)
        if text.hasPrefix("ok\n") { return 0 }
        var status: Int32 = 0
        waitpid(pid, &status, WNOHANG)
        let message = text.trimmingCharacters(in: .whitespacesAndNewlines)
        FileHandle.standardError.write(Data((message.isEmpty
            ? "downloadfs: mount: the daemon exited before the mount was ready"
            : message).utf8 + [10]))
        return 1
    }
}
