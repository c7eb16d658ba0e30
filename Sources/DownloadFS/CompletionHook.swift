import Foundation
import FuseKit
import Glibc
import Threads

/// Runs `--on-complete CMD` through `/bin/sh -c` when a task completes (R33),
/// without waiting on it; a reaper thread collects its exit status and logs
/// a failure. Nothing else depends on the hook.
final class CompletionHook: Sendable {
    let command: String
    let log: EventLog

    init(command: String, log: EventLog) {
        self.command = command
        self.log = log
    }

    func run(id: Int64, name: String, path: String, url: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["DOWNLOADFS_ID"] = String(id)
        environment["DOWNLOADFS_NAME"] = name
        environment["DOWNLOADFS_PATH"] = path
        environment["DOWNLOADFS_URL"] = url
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // stdin from /dev/null; stdout and stderr go where the daemon's go.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let pid: pid_t
        switch CleanSpawn.spawn("/bin/sh", arguments: ["/bin/sh", "-c", command],
                                environment: environment.map { "\($0.key)=\($0.value)" }, actions: &actions) {
        case .success(let started): pid = started
        case .failure(let error):
            log.daemon("on-complete hook for task \(id) could not start: \(error)", level: .warning)
            return
        }
        let log = self.log
        let child = pid
        let watched = try? OSThread.start("downloadfs-hook", stackSize: 256 << 10) {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            let exited = (status & 0x7f) == 0
            let code = (status >> 8) & 0xff
            if !exited || code != 0 {
                log.daemon("on-complete hook for task \(id) failed (\(exited ? "exit \(code)" : "signal \(status & 0x7f)"))",
                           level: .warning)
            }
        }
        if watched == nil {
            log.daemon("on-complete hook for task \(id) runs unwatched: no thread could be made to wait for it, "
                + "so its exit status is not logged", level: .warning)
        }
    }
}
