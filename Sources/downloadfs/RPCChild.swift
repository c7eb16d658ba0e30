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

    /// How long the door may take to listen.
    static let startDeadline: TimeInterval = 15

    /// Starts it and waits until it listens (`RPCCommand.readyLine` on its
    /// stdout). Nil once it does; else the one line saying why not (a port
    /// in use, a secret file missing or readable by others), and no door
    /// runs: `mount --rpc` then fails as a whole (R70, R2).
    func start() -> String? {
        let child = Process()
        let output = Pipe()
        child.executableURL = URL(fileURLWithPath: Self.executable)
        child.arguments = arguments
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = output
        do { try child.run() } catch {
            return "downloadfs: mount --rpc: cannot start downloadfs rpc: \(error)"
        }
        try? output.fileHandleForWriting.close()
        let said = Self.firstLine(of: output.fileHandleForReading.fileDescriptor, within: Self.startDeadline)
        try? output.fileHandleForReading.close()
        if said == RPCCommand.readyLine {
            process.withLock { $0 = child }
            return nil
        }
        if child.isRunning {
            child.terminate()
            let deadline = Date().addingTimeInterval(5)
            while child.isRunning && Date() < deadline { usleep(20_000) }
            if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        }
        guard let said, !said.isEmpty else {
            return "downloadfs: mount --rpc: downloadfs rpc did not start within \(Int(Self.startDeadline)) s"
        }
        return said
    }

    /// The first line `fd` gives within `seconds`; nil when none came (it
    /// closed without one, or the time ran out).
    private static func firstLine(of fd: Int32, within seconds: TimeInterval) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && !bytes.contains(10) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready < 0 && errno != EINTR { break }
            if ready <= 0 { continue }
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[..<n]
        }
        guard !bytes.isEmpty else { return nil }
        let line = bytes.split(separator: 10, omittingEmptySubsequences: false).first ?? []
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    /// SIGTERM, then up to 5 s for it to end.
    func stop() {
        guard let child = process.withLock({ $0 }), child.isRunning else { return }
        child.terminate()
        let deadline = Date().addingTimeInterval(5)
        while child.isRunning && Date() < deadline { usleep(20_000) }
    }
}
