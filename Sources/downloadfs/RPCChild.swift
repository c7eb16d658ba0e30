import Foundation
import Glibc
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
        arguments = ["rpc", mountpoint, "--stop-mount-on-shutdown"] + options.arguments
    }

    /// Starts it; a failure to start (a port in use) is its own line on our
    /// stderr (the daemon's log), and the mount goes on without the door.
    func start() {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
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
