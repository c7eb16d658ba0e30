import Foundation
import Glibc
import DownloadFSCore
import Synchronization

/// The `downloadfs rpc` that `mount --rpc` runs beside the daemon (R70): a
/// child process, so the door is a client of the mount like any other —
/// it reaches the daemon only through the mount's files, and a crash of
/// it touches no download. It stops by itself when the mount goes (its
/// `events` stream ends); `stop` also ends it at unmount.
final class RPCChild: Sendable {
    private let arguments: [String]
    private let process = Mutex(Process?.none)

    init(mountpoint: String, options: RPCOptions) {
        arguments = MountDoorProcess.arguments(mountpoint: mountpoint, options: options.arguments)
    }

    /// This program's own path, so `ps` and `pgrep` show the child as
    /// `…/downloadfs rpc MOUNT`, not `/proc/self/exe rpc MOUNT`.
    private static var executable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/proc/self/exe"
    }

    /// The doors `mount --rpc` started for the daemon `daemon` at
    /// `mountpoint` (`MountDoorProcess` decides from `/proc`).
    static func doors(of daemon: Int32, mountpoint: String) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let commandLine = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")) else { return false }
            return MountDoorProcess.isDoor(statLine: stat, commandLine: Array(commandLine), daemon: daemon,
                                           mountpoint: mountpoint)
        }
    }

    /// Starts it; a failure to start (a port in use) is its own line on our
    /// stderr (the daemon's log), and the mount goes on without the door.
    func start() {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: Self.executable)
        child.arguments = arguments
        child.standardInput = FileHandle.nullDevice
        do { try child.run() } catch {
            FileHandle.standardError.write(Data("downloadfs: mount --rpc: cannot start downloadfs rpc: \(error)\n".utf8))
            return
        }
        process.withLock { $0 = child }
    }

    /// SIGTERM, then up to 5 s for it to end.
    func stop() {
        guard let child = process.withLock({ $0 }), child.isRunning else { return }
        child.terminate()
        let deadline = Date().addingTimeInterval(5)
        while child.isRunning && Date() < deadline { usleep(20_000) }
    }
}
