import Foundation
import FuseKit
import Glibc

/// Runs a helper program (fusermount3) with a deadline, with its stderr.
///
/// `unmount` must never hang (R3), so nothing it starts may block it for
/// good: a helper still running at the deadline is killed and left to the
/// kernel to reap, and the caller decides what to do instead.
public enum TimedSubprocess {
    public enum Outcome: Sendable, Equatable {
        case exited(status: Int32, stderr: String)
        case timedOut
        case couldNotStart(String)
    }

    public static func run(_ executable: String, _ arguments: [String], timeout seconds: Double) -> Outcome {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0, fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC) == 0,
              fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC) == 0 else {
            return .couldNotStart(String(cString: strerror(errno)))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
        let spawned = CleanSpawn.spawn(executable, arguments: [executable] + arguments,
                                       environment: CleanSpawn.inheritedEnvironment, actions: &actions)
        close(pipeFDs[1])
        defer { close(pipeFDs[0]) }
        let pid: pid_t
        switch spawned {
        case .success(let started): pid = started
        case .failure(let error): return .couldNotStart(error.description)
        }

        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var pipeOpen = true
        var exitStatus: Int32?
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            var status: Int32 = 0
            if exitStatus == nil, waitpid(pid, &status, WNOHANG) == pid { exitStatus = status }
            var fds = pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)
            if pipeOpen, poll(&fds, 1, exitStatus == nil ? 20 : 0) > 0 {
                let n = read(pipeFDs[0], &buffer, buffer.count)
                if n > 0 {
                    output += buffer[..<n]
                    continue
                }
                pipeOpen = false
            } else if !pipeOpen, exitStatus == nil {
                usleep(20_000)
            }
            if let status = exitStatus {
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return .exited(status: code, stderr: String(decoding: output, as: UTF8.self))
            }
            if Date() >= deadline { break }
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        // Reap it if it dies at once; one stuck in the kernel is left behind.
        var tries = 0
        while waitpid(pid, &status, WNOHANG) == 0 && tries < 10 {
            usleep(10_000)
            tries += 1
        }
        return .timedOut
    }
}
