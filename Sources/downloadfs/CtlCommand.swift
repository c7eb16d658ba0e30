import ArgumentParser
import DownloadFSCore
import Foundation
import Glibc

/// `downloadfs ctl [--mount MOUNTPOINT] ID|all COMMAND…` (R4): a plain
/// client of a task's `ctl` (R30) or the mount's (R31).
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send a command to a task, or to the whole mount with all.",
        discussion: """
            Writes COMMAND to MOUNT/queue/ID/ctl, or to MOUNT/ctl for all, as
            echo COMMAND > ctl does. When the mount refuses it, prints the reason
            MOUNT/log gives and exits 1.

            A task takes pause, resume, start, top, move N, limit RATE, split N
            and forget; all takes max-active N, limit RATE, split N, pause-all,
            resume-all and forget-completed. cat MOUNT/queue/ID/ctl or
            cat MOUNT/ctl shows the settings in force.

            Example:
              downloadfs ctl 3 pause
              downloadfs ctl 3 limit 500K
              downloadfs ctl all max-active 2
            """
    )

    @Option(help: ArgumentHelp("The downloadfs mount to use (default: the only one mounted).", valueName: "dir"))
    var mount: String?

    @Argument(help: ArgumentHelp("A task id, or all for the mount's own ctl.", valueName: "id|all"))
    var target: String

    @Argument(help: ArgumentHelp("The command and its argument, e.g. pause or limit 2M.", valueName: "command"))
    var words: [String] = []

    func validate() throws {
        guard ControlTarget(target) != nil else {
            throw ValidationError("\(target) is neither a task id (1, 2, …) nor all")
        }
        guard !words.isEmpty else { throw ValidationError("give a command, e.g. downloadfs ctl \(target) pause") }
    }

    func run() throws {
        guard let target = ControlTarget(target) else { return }
        let command = words.joined(separator: " ")
        do {
            let root = try MountLocator.resolve(mount, command: "ctl")
            try send(command, to: target, root: root)
        } catch let error as ClientError { throw error.exit() }
    }

    /// One write of `COMMAND\n`, as `echo` makes it.
    private func send(_ command: String, to target: ControlTarget, root: String) throws(ClientError) {
        let path = root + "/" + target.file
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT, case .task(let id) = target {
                throw ClientError("ctl: no task \(id) in \(root) (downloadfs status lists them)")
            }
            throw ClientError("ctl: cannot open \(path): \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        let bytes = Array((command + "\n").utf8)
        var n: Int
        repeat { n = write(fd, bytes, bytes.count) } while n < 0 && errno == EINTR
        guard n < 0 else { return }
        let code = errno
        guard code == EINVAL else {
            throw ClientError("ctl: \(path) did not take \"\(command)\": \(String(cString: strerror(code)))")
        }
        let log = (try? String(contentsOfFile: root + "/log", encoding: .utf8)) ?? ""
        let reason = target.refusal(inLog: log) ?? String(cString: strerror(code))
        throw ClientError("ctl: the mount refused \"\(command)\": \(reason)")
    }
}
