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

    /// Dashes included (`move -1`: the mount says why it refuses it).
    @Argument(parsing: .allUnrecognized,
              help: ArgumentHelp("The command and its argument, e.g. pause or limit 2M.", valueName: "command"))
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
            do { try MountFiles(path: root).send(command, to: target) } catch {
                let hint = error.code == ENOENT && target != .all ? " (downloadfs status lists them)" : ""
                throw ClientError("ctl: " + error.message + hint)
            }
        } catch let error as ClientError { throw error.exit() }
    }
}
