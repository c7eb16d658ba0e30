import ArgumentParser
import Engine

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
        subcommands: [MountCommand.self, UnmountCommand.self, AddCommand.self, StatusCommand.self]
    )

    static func main() {
        // Before any thread exists (libcurl's global init is not thread-safe).
        Curl.globalInit()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}
