import ArgumentParser
import DownloadFSCore
import Foundation

/// `downloadfs wait [--mount MOUNTPOINT] [ID...]` (R4): a plain client of
/// the tasks' `wait` files (R22).
struct WaitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until tasks have ended and print how each ended.",
        discussion: """
            Blocks until each task given has completed or failed — without ids,
            every task not yet completed or failed when wait starts, paused ones
            too — then prints one line per task, in the order given:
              ID completed NAME
              ID failed: WHY
            A task removed while waited on has failed (failed: task removed); one
            that completed and was forgotten before its turn (forget,
            forget-completed) completed, and is reported so.
            Exits 0 when every task completed, 3 when any failed (as aria2c does
            when some downloads failed), 1 when an id is not a task of the mount.

            Example:
              downloadfs wait 3 4 && echo both downloaded
              downloadfs wait --mount ~/dl      # every unfinished task
            """
    )

    @Option(help: ArgumentHelp("The downloadfs mount to use (default: the only one mounted).", valueName: "dir"))
    var mount: String?

    @Argument(help: ArgumentHelp("Task ids (default: every unfinished task).", valueName: "id"))
    var ids: [Int64] = []

    func validate() throws {
        if let bad = ids.first(where: { $0 < 1 }) { throw ValidationError("\(bad) is not a task id (1, 2, …)") }
    }

    func run() throws {
        do {
            let waiter = TaskWaiter(root: try MountLocator.resolve(mount, command: "wait"), command: "wait")
            throw ExitCode(try waiter.wait(for: ids.isEmpty ? waiter.unfinished() : ids))
        } catch let error as ClientError { throw error.exit() }
    }
}
