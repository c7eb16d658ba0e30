import ArgumentParser
import DownloadFS
import Foundation
import Glibc

/// `downloadfs unmount MOUNTPOINT` (R3): unmounts and waits until the daemon
/// has checkpointed its transfers and exited.
struct UnmountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unmount",
        abstract: "Unmount downloadfs; transfers are checkpointed and resume on the next mount.",
        discussion: """
            Example:
              downloadfs unmount ~/dl
            """
    )

    @Argument(help: "Where downloadfs is mounted.")
    var mountpoint: String

    func run() throws {
        let path = MountPreflight.absolute(mountpoint)
        guard let mount = MountTable.downloadfsMounts().first(where: { $0.mountpoint == path }) else {
            throw ClientError("unmount: \(path) is not a downloadfs mount").exit()
        }
        let pid = (try? String(contentsOfFile: mount.source + "/daemon.pid", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard let fusermount = MountPreflight.findExecutable("fusermount3") else {
            throw ClientError("unmount: fusermount3 was not found; install the fuse3 package").exit()
        }
        let result = Subprocess.run(fusermount, ["-u", path])
        guard result.status == 0 else {
            let reason = result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
            throw ClientError("unmount: \(reason.isEmpty ? "fusermount3 failed" : reason) (close files open under \(path) and try again)").exit()
        }
        guard let pid, pid > 0 else { return }
        let deadline = Date().addingTimeInterval(60)
        while isAlive(pid) && Date() < deadline { usleep(50_000) }
        if isAlive(pid) {
            throw ClientError("unmount: the daemon (pid \(pid)) is still saving its state; it will exit by itself").exit()
        }
    }

    /// A zombie (exited, not yet reaped by its parent) has finished its work.
    private func isAlive(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return true }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
