import ArgumentParser
import DownloadFSCore
import Engine
import Foundation
import Manual

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
                      WaitCommand.self, CtlCommand.self, RPCCommand.self]
    )

    /// `--generate-manual`: print the man page (mdoc) and exit. Hidden, as
    /// argument-parser's `--generate-completion-script` is from users;
    /// `scripts/install` runs it on the binary it installs.
    @Flag(name: .customLong("generate-manual"), help: .private)
    var generateManual = false

    func run() throws {
        guard generateManual else { throw CleanExit.helpRequest(self) }
        print(try Self.manual(), terminator: "")
    }

    /// The man page, from argument-parser's description of every command
    /// (the JSON of `--experimental-dump-help`) and the core's lists. Dated
    /// `SOURCE_DATE_EPOCH` when set (scripts/install sets the last
    /// commit's), so a page rebuilt from the same source is the same page.
    static func manual() throws -> String {
        let root: ManualCommand
        do {
            root = try ManualCommand.root(ofToolInfo: Data(_dumpHelp().utf8))
        } catch {
            // Our own definitions read back: only another argument-parser could break this.
            throw ClientError("--generate-manual: argument-parser's command description did not decode: \(error)").exit()
        }
        let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(TimeInterval.init)
        return ManualPage(root: root, date: epoch.map(Date.init(timeIntervalSince1970:)) ?? Date(),
                          failureStatus: ExitCode.failure.rawValue,
                          usageStatus: ExitCode.validationFailure.rawValue).rendered()
    }

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
            exit(withError: ExitCode.validationFailure)
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
