import ArgumentParser
import Foundation
import Glibc

/// `downloadfs status [MOUNTPOINT] [--watch]` (R4): prints the mount's
/// status table; a plain client of MOUNT/status.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show every task with its progress, speed and ETA.",
        discussion: """
            Example:
              downloadfs status ~/dl
              downloadfs status --mount ~/dl
              downloadfs status --watch     # redraws every second; Ctrl-C to stop
            """
    )

    @Argument(help: "Where downloadfs is mounted (default: the only one mounted).")
    var mountpoint: String?

    @Option(help: ArgumentHelp("The downloadfs mount to show (the same as MOUNTPOINT).", valueName: "dir"))
    var mount: String?

    @Flag(help: "Redraw every second until interrupted, fitting the terminal.")
    var watch = false

    func run() throws {
        let root: String
        do {
            root = try MountLocator.resolve(MountLocator.named(positional: mountpoint, option: mount, command: "status"), command: "status")
        } catch let error as ClientError { throw error.exit() }
        let tty = isatty(1) != 0
        repeat {
            guard let table = try? String(contentsOfFile: root + "/status", encoding: .utf8) else {
                throw ClientError("status: cannot read \(root)/status; is downloadfs mounted there?").exit()
            }
            // Measured per frame: the window may have been resized.
            let size = tty ? StatusScreen.terminalSize() : nil
            let screen = StatusScreen.render(table: table, width: size?.columns,
                                             height: watch ? size?.rows : nil)
            if watch && tty { print("\u{1B}[H\u{1B}[2J", terminator: "") }
            print(screen, terminator: "")
            fflush(nil)
            if watch { sleep(1) }
        } while watch
    }
}
