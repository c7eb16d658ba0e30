import ArgumentParser
import DownloadFS
import DownloadFSCore
import Foundation
import Synchronization
import Glibc

/// `downloadfs mount MOUNTPOINT` (R1, R2, R33).
struct MountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mount",
        abstract: "Mount downloadfs at MOUNTPOINT and start downloading.",
        discussion: """
            Returns once the mount is ready; the daemon keeps running in the
            background unless --foreground is given. Downloads carry on across
            unmounts, crashes and remounts of the same state dir.

            mount(8) and /etc/fstab call it as `downloadfs STATE_DIR MOUNTPOINT -o
            OPTIONS`, with these options written name=value among FUSE's
            (max-active=4,speed-limit=2M,allow_other).

            Example:
              mkdir -p ~/dl && downloadfs mount ~/dl --max-active 4 --speed-limit 2M
              echo https://example.com/file.iso > ~/dl/queue/new
              mount -t fuse.downloadfs ~/.local/share/downloadfs ~/dl -o max-active=4
            """
    )

    @Argument(help: "An empty directory to mount on.")
    var mountpoint: String

    @Option(help: ArgumentHelp("Where the catalog and the data live (default: ${XDG_DATA_HOME:-$HOME/.local/share}/downloadfs).", valueName: "dir"))
    var stateDir: String?

    @Option(help: ArgumentHelp("How many tasks download at once.", valueName: "n"))
    var maxActive: Int = 3

    @Option(help: ArgumentHelp("Attempts in a row without data before a task fails.", valueName: "n"))
    var maxTries: Int = 20

    @Option(help: ArgumentHelp("Global speed limit, like 500K, 2M or 1.5MiB (default: none).", valueName: "rate"))
    var speedLimit: String?

    @Option(help: ArgumentHelp("Connections per task, 1 to 16, for tasks without their own split=N (default: one, up to \(SplitPolicy.defaultSplit) when one is slow).", valueName: "n"))
    var split: Int?

    @Option(help: ArgumentHelp("Most connections to one host, across all tasks (1 to 64).", valueName: "n"))
    var maxConnectionsPerHost: Int = DaemonConfiguration.defaultMaxConnectionsPerHost

    @Option(help: ArgumentHelp("Run CMD with /bin/sh -c when a task completes (DOWNLOADFS_ID, _NAME, _PATH, _URL are set).", valueName: "cmd"))
    var onComplete: String?

    @Option(help: ArgumentHelp("Also trust the CA certificates in FILE (PEM) for https and ftps; the system store stays trusted.", valueName: "file"))
    var caCertificate: String?

    @Option(name: .customShort("o"), help: ArgumentHelp("A FUSE mount option, e.g. -o allow_other (repeatable); -o nonempty mounts over a directory that is not empty.", valueName: "opt"))
    var fuseOptions: [String] = []

    @Flag(help: "Stay in the foreground and log to stderr.")
    var foreground = false

    @Flag(help: "Also serve aria2's JSON-RPC for the mount (downloadfs rpc, with the rpc-* options), for as long as the mount lives.")
    var rpc = false

    @OptionGroup(title: "aria2 JSON-RPC (with --rpc)") var rpcOptions: RPCOptions

    @Flag(help: .private)
    var daemonChild = false

    /// The options that came as `-o name=value` (R8, `MountHelperInvocation`):
    /// their errors name them that way.
    @Option(name: .customLong(String(MountHelperInvocation.givenAsMountOptionFlag.dropFirst(2))), help: .private)
    var givenAsMountOption: [String] = []

    func validate() throws {
        let range = ControlCommand.maxActiveRange
        guard maxActive >= range.lowerBound else { throw refusal("max-active", maxActive, "must be at least 1") }
        // What MOUNT/ctl takes, so the setting `cat ctl` shows can be written back (R31).
        guard maxActive <= range.upperBound else {
            throw refusal("max-active", maxActive, "must be at most \(range.upperBound)")
        }
        guard maxTries >= 1 else { throw refusal("max-tries", maxTries, "must be at least 1") }
        let splits = TaskOptions.splitRange
        if let split, !splits.contains(split) {
            throw refusal("split", split, "must be from \(splits.lowerBound) to \(splits.upperBound)")
        }
        let perHost = DaemonConfiguration.maxConnectionsPerHostRange
        guard perHost.contains(maxConnectionsPerHost) else {
            throw refusal("max-connections-per-host", maxConnectionsPerHost,
                          "must be from \(perHost.lowerBound) to \(perHost.upperBound)")
        }
        if let caCertificate {
            var st = stat()
            if stat(caCertificate, &st) != 0 || access(caCertificate, R_OK) != 0 {
                let reason = String(cString: strerror(errno)).lowercased()
                throw refusal("ca-certificate", caCertificate, "\(reason); give a readable PEM file of CA certificates")
            }
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                throw refusal("ca-certificate", caCertificate, "not a file; give a PEM file of CA certificates")
            }
            if let problem = CACertificateFile.problem(caCertificate) { throw refusal("ca-certificate", caCertificate, problem) }
        }
        if let speedLimit {
            do throws(ByteRateError) { _ = try ByteRate.read(speedLimit) } catch {
                throw refusal("speed-limit", speedLimit, error.message)
            }
        }
    }

    /// The value of option `name` refused, named as the user gave it.
    private func refusal(_ name: String, _ value: some CustomStringConvertible, _ problem: String) -> ValidationError {
        ValidationError(MountOptionRefusal(name: name, value: value.description, problem: problem,
                                           givenAsMountOption: givenAsMountOption.contains(name)).message)
    }

    func run() throws {
        var configuration = DaemonConfiguration(mountpoint: mountpoint, stateDir: stateDir ?? StateDirectory.defaultPath)
        configuration.maxActive = maxActive
        configuration.maxTries = maxTries
        configuration.speedLimit = speedLimit.flatMap(ByteRate.parse) ?? 0
        configuration.split = split
        configuration.maxConnectionsPerHost = maxConnectionsPerHost
        configuration.onComplete = onComplete
        configuration.fuseOptions = fuseOptions
        configuration.caCertificate = caCertificate.map(MountPreflight.absolute)

        if !foreground {
            // Re-run ourselves detached and wait until it says the mount is ready.
            throw ExitCode(BackgroundLauncher.launch(arguments: DownloadFSCommand.arguments))
        }
        let report: Int32 = daemonChild ? BackgroundLauncher.reportFD : 2
        if daemonChild {
            setsid()
            _ = fcntl(report, F_SETFD, FD_CLOEXEC)
            configuration.logToFile = true
        }
        let child = daemonChild
        // R70: the door starts once the mount is ready, and goes with it.
        // The path the mount table shows (links followed, as the daemon
        // mounts), so `unmount` finds the door by it.
        let mounted = MountPreflight.linksFollowedSafely(MountPreflight.absolute(mountpoint)) ?? MountPreflight.absolute(mountpoint)
        let door = rpc ? RPCChild(mountpoint: mounted, options: rpcOptions) : nil
        let doorFailure = Mutex(String?.none)
        /// The mount failed: its one line to `mount` (and, detached, to the
        /// daemon's own log, STATE/daemon.log once open), exit 1.
        func fail(_ line: String) -> ExitCode {
            let bytes = Array((line + "\n").utf8)
            _ = Glibc.write(report, bytes, bytes.count)
            if daemonChild { _ = Glibc.write(2, bytes, bytes.count) }
            return ExitCode(1)
        }
        do {
            let code = try Daemon.run(configuration) {
                if let door, let line = door.start() {
                    // No mount without the door asked for (R2): unmount
                    // (SIGTERM, R3), then say why (below).
                    doorFailure.withLock { (failure: inout String?) in failure = line }
                    kill(getpid(), SIGTERM)
                    return
                }
                guard child else { return }
                _ = Glibc.write(report, "ok\n", 3)
                close(report)
            }
            door?.stop()
            if let failure = doorFailure.withLock({ $0 }) { throw fail(failure) }
            throw ExitCode(code)
        } catch let error as DaemonError {
            throw fail("downloadfs: mount: \(error.message)")
        }
    }
}
