import ArgumentParser
import DownloadFS
import DownloadFSCore
import Foundation
import Glibc

/// `downloadfs unmount MOUNTPOINT` (R3): unmounts and waits until the daemon
/// has checkpointed its transfers and exited.
///
/// It never hangs: it finds the mount and the daemon from mountinfo and the
/// state dir (never through the mount itself), asks the daemon through the
/// mount only from a forked probe with a deadline, and runs fusermount3
/// with one too. A daemon that does not answer within `answerDeadline`
/// (stopped, hung) gets its mount detached lazily, and the user is told.
struct UnmountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unmount",
        abstract: "Unmount downloadfs; transfers are checkpointed and resume on the next mount.",
        discussion: """
            Waits until the daemon has saved its state and exited. If the daemon
            does not answer within 10 s (stopped or hung), the mount is detached
            lazily instead: it leaves the tree at once, and the daemon saves its
            state and exits when it runs again.

            Example:
              downloadfs unmount ~/dl
              downloadfs unmount --mount ~/dl
            """
    )

    /// How long the daemon may take to answer before the mount is detached lazily.
    static let answerDeadline = 10.0
    /// How long fusermount3 may take.
    static let fusermountDeadline = 10.0
    /// How long a daemon that answered may take to checkpoint and exit.
    static let exitDeadline = 60.0

    @Argument(help: "Where downloadfs is mounted (or give it with --mount).")
    var mountpoint: String?

    @Option(help: ArgumentHelp("The downloadfs mount to unmount (the same as MOUNTPOINT).", valueName: "dir"))
    var mount: String?

    func run() throws {
        let named: String?
        do { named = try MountLocator.named(positional: mountpoint, option: mount, command: "unmount") } catch let error as ClientError { throw error.exit() }
        guard let named else { throw ClientError("unmount: say which mount to unmount: downloadfs unmount DIR").exit() }
        // As the other commands find it: also through a symbolic link.
        let path: String
        do { path = try MountLocator.resolve(named, command: "unmount") } catch let error as ClientError { throw error.exit() }
        guard let entry = MountTable.downloadfsMounts().first(where: { $0.mountpoint == path }) else {
            throw ClientError("unmount: \(path) is not a downloadfs mount").exit()
        }
        let pid = (try? String(contentsOfFile: entry.source + "/daemon.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard let fusermount = MountPreflight.findExecutable("fusermount3") else {
            throw ClientError("unmount: fusermount3 was not found; install the fuse3 package").exit()
        }
        guard MountProbe.answers(path, within: UnmountCommand.answerDeadline) else {
            try detachLazily(path, fusermount: fusermount, pid: pid)
            return
        }
        if let pid { stopDoors(of: pid, at: path) }
        switch TimedSubprocess.run(fusermount, ["-u", path], timeout: UnmountCommand.fusermountDeadline) {
        case .exited(0, _):
            break
        case .exited(_, let stderr):
            let reason = stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            throw ClientError("unmount: \(reason.isEmpty ? "fusermount3 failed" : reason) (close files open under \(path) and try again)").exit()
        case .timedOut:
            try detachLazily(path, fusermount: fusermount, pid: pid)
            return
        case .couldNotStart(let reason):
            throw ClientError("unmount: cannot run fusermount3: \(reason)").exit()
        }
        guard let pid, pid > 0 else { return }
        let deadline = Date().addingTimeInterval(UnmountCommand.exitDeadline)
        while isAlive(pid) && Date() < deadline { usleep(50_000) }
        if isAlive(pid) {
            throw ClientError("unmount: the daemon (pid \(pid)) is still saving its state; it will exit by itself").exit()
        }
    }

    /// `fusermount3 -uz`: the mount leaves the tree now and goes for good
    /// once nothing uses it; the daemon then checkpoints and exits when it
    /// runs again. Exit 0 (the mount is gone), with one line saying so.
    private func detachLazily(_ path: String, fusermount: String, pid: Int32?) throws {
        let daemon = pid.map { "the daemon (pid \($0))" } ?? "the daemon"
        switch TimedSubprocess.run(fusermount, ["-uz", path], timeout: UnmountCommand.fusermountDeadline) {
        case .exited(0, _):
            FileHandle.standardError.write(Data(("downloadfs: unmount: \(daemon) did not answer within "
                + "\(Int(UnmountCommand.answerDeadline)) s (stopped or hung); detached \(path) lazily: "
                + "it saves its state and exits when it runs again\n").utf8))
        case .exited(_, let stderr):
            let reason = stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            throw ClientError("unmount: \(daemon) did not answer and \(path) could not be detached: \(reason.isEmpty ? "fusermount3 -uz failed" : reason)").exit()
        case .timedOut:
            throw ClientError("unmount: \(daemon) did not answer and fusermount3 -uz \(path) did not finish within \(Int(UnmountCommand.fusermountDeadline)) s").exit()
        case .couldNotStart(let reason):
            throw ClientError("unmount: cannot run fusermount3: \(reason)").exit()
        }
    }

    /// Ends the aria2 doors `mount --rpc` started (R70): each holds
    /// `MOUNT/events` open, so the unmount would be refused as busy. SIGTERM,
    /// then up to 5 s each; the daemon reaps them.
    private func stopDoors(of daemon: Int32, at path: String) {
        let doors = RPCChild.doors(of: daemon, mountpoint: path)
        for door in doors { kill(door, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while doors.contains(where: isAlive) && Date() < deadline { usleep(20_000) }
    }

    /// Whether `pid` still runs or still holds its files (`ProcessStat.hasEnded`).
    private func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).flatMap(ProcessStat.init(line:))
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"))?.count ?? 0
        return !ProcessStat.hasEnded(stat, threads: threads)
    }
}
