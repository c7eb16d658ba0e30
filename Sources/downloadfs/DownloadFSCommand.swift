import ArgumentParser
import DownloadFSCore
import Engine
import Foundation

/// `downloadfs`: a download manager whose whole interface is a filesystem.
@main
struct DownloadFSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "downloadfs",
        abstract: "A download manager whose whole interface is a filesystem.",
        discussion: """
            Mount it, write URLs into queue/new, watch queue/<id>/status, and find
            finished downloads in files/.

            Example:
              mkdir -p ~/dl && downloadfs mount ~/dl
              echo https://example.com/big.iso > ~/dl/queue/new
              cat ~/dl/queue/1/status
              downloadfs unmount ~/dl
            """,
        version: "downloadfs \(ProductVersion.current)",
        subcommands: [MountCommand.self, UnmountCommand.self, AddCommand.self, StatusCommand.self,
                      WaitCommand.self, CtlCommand.self]
    )

    /// The arguments the command line means, without the program name:
    /// mount(8)'s `downloadfs STATE MNT -o …` (R8) already read as the
    /// `downloadfs mount …` it asks for. Set once in `main`, before any
    /// thread exists; `mount` re-runs itself in the background with them.
    nonisolated(unsafe) static var arguments: [String] = []

    static func main() {
        // Before any thread exists (libcurl's global init is not thread-safe).
        Curl.globalInit()
        arguments = Array(CommandLine.arguments.dropFirst())
        let names = Set(configuration.subcommands.map { $0._commandName })
        do {
            if let helper = try MountHelperInvocation.parse(arguments, subcommands: names) {
                arguments = helper.mountArguments
            }
        } catch {
            FileHandle.standardError.write(Data("downloadfs: \(error.message) (see downloadfs mount --help)\n".utf8))
            exit(withError: ExitCode(64))
        }
        var command: ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            // A bad option is one line (R2), not the usage block after it;
            // --help and friends print as usual.
            guard exitCode(for: error) != .success else { exit(withError: error) }
            let reason = message(for: error).split(separator: "\n").first.map(String.init) ?? "bad arguments"
            FileHandle.standardError.write(Data("downloadfs: \(reason) (see downloadfs --help)\n".utf8))
            exit(withError: ExitCode(exitCode(for: error).rawValue))
        }
        do {
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
