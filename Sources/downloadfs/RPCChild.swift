import Foundation
import Glibc
import DownloadFSCore
import Synchronization

/// The `downloadfs rpc` that `mount --rpc` runs beside the daemon (R70): a
/// child process, so the door is a client of the mount like any other —
/// it reaches the daemon only through the mount's files, and a crash of
/// it touches no download. It stops by itself when the mount goes (its
/// `events` stream ends); `stop` also ends it at unmount. One that crashes
/// (or is killed) is started again (`MountDoorProcess.restartDelay`).
final class RPCChild: Sendable {
    private let arguments: [String]
    private struct State {
        /// The door that listens now.
        var process: Process?
        var stopping = false
    }
    private let state = Mutex(State())

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
    static let startDeadline = 15

    /// Starts it and waits until it listens (`MountDoorProcess.readyLine` on
    /// its stdout). Nil once it does; else the one line saying why not (a
    /// port in use, a secret file missing or readable by others), and no
    /// door runs: `mount --rpc` then fails as a whole (R70, R2).
    func start() -> String? {
        let child = Process()
        child.terminationHandler = { [weak self] ended in self?.ended(ended) }
        let output = Pipe()
        child.executableURL = URL(fileURLWithPath: Self.executable)
        child.arguments = arguments
        child.standardInput = FileHandle.nullDevice
        child.standardOutput = output
        do { try child.run() } catch {
            return "downloadfs: mount --rpc: cannot start downloadfs rpc: \(error)"
        }
        try? output.fileHandleForWriting.close()
        let said = ReportPipe.firstLine(of: output.fileHandleForReading.fileDescriptor,
                                        within: TimeInterval(Self.startDeadline))
        try? output.fileHandleForReading.close()
        let failure = MountDoorProcess.startFailure(firstLine: said, within: Self.startDeadline)
        // A door that listens is kept, unless the mount stopped meanwhile (a restart's).
        let kept = failure == nil && state.withLock { state -> Bool in
            if !state.stopping { state.process = child }
            return !state.stopping
        }
        if !kept { Self.end(child) }
        return failure
    }

    /// SIGTERM, then up to 5 s for it to end, then SIGKILL.
    private static func end(_ child: Process) {
        guard child.isRunning else { return }
        child.terminate()
        let deadline = Date().addingTimeInterval(5)
        while child.isRunning && Date() < deadline { usleep(20_000) }
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
    }

    /// The door that listened has ended: started again if it crashed,
    /// on a thread of its own (this is Foundation's termination handler).
    private func ended(_ child: Process) {
        let (current, stopping) = state.withLock { ($0.process === child, $0.stopping) }
        guard current else { return }  // one that never listened: `start` told why
        let bySignal = child.terminationReason == .uncaughtSignal
        guard MountDoorProcess.restartDelay(endedBySignal: bySignal, mountStopping: stopping, failedStarts: 0) != nil
        else { return }
        state.withLock { $0.process = nil }
        Self.say("the door (downloadfs rpc, pid \(child.processIdentifier)) was ended by signal "
                 + "\(child.terminationStatus); starting it again")
        Thread.detachNewThread { [weak self] in self?.restart() }
    }

    /// Starts the door again until it listens or the mount stops, waiting
    /// longer after each start that fails.
    private func restart() {
        var (failed, last) = (0, String?.none)
        while let delay = MountDoorProcess.restartDelay(endedBySignal: true, mountStopping: state.withLock { $0.stopping },
                                                        failedStarts: failed) {
            if let last { Self.say("\(last); trying again in \(Int(delay)) s") }
            Thread.sleep(forTimeInterval: delay)
            if state.withLock({ $0.stopping }) { return }
            guard let failure = start() else { return Self.say("the door listens again") }
            (failed, last) = (failed + 1, failure)
        }
    }

    /// A line of the daemon's log (its stderr, STATE/daemon.log in the background).
    private static func say(_ line: String) {
        let text = line.hasPrefix("downloadfs: ") ? line : "downloadfs: mount --rpc: " + line
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Ends the door (`end`); no door is started after this.
    func stop() {
        let child = state.withLock { state -> Process? in
            state.stopping = true
            return state.process
        }
        if let child { Self.end(child) }
    }
}
