import Foundation
import Glibc
import Threads

/// Reads `MOUNT/events` (R24) on a thread of its own and hands each whole
/// line on: what aria2's notifications are built on (R73), and how `wait`
/// learns how a task it had not reached yet went away (`GoneTaskWatch`),
/// never a poll of every task. A read blocks until a line is there; the
/// daemon going away ends the file, and the follower with it.
final class EventFollower: Sendable {
    private let path: String
    /// The client command, which names its errors and the thread.
    private let command: String
    private let onLine: @Sendable (String) -> Void
    private let onEnd: @Sendable (String) -> Void

    /// `onEnd` gets why the stream ended (the mount went away, or a read failed).
    init(mount: String, command: String, onLine: @escaping @Sendable (String) -> Void,
         onEnd: @escaping @Sendable (String) -> Void) {
        path = mount + "/events"
        self.command = command
        self.onLine = onLine
        self.onEnd = onEnd
    }

    /// Opens the stream now, so no change after this call is missed, and
    /// follows it on a new thread.
    func start() throws(ClientError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ClientError("\(command): cannot open \(path): \(String(cString: strerror(errno)))") }
        do { try OSThread.start("\(command)-events") { [self] in follow(fd) } } catch {
            close(fd)
            throw ClientError("\(command): \(error.message)")
        }
    }

    private func follow(_ fd: Int32) {
        defer { close(fd) }
        do {
            try LineReader.forEachLine(of: fd) { line in
                onLine(String(line))
                return true
            }
            onEnd("\(path) ended (the mount went away)")
        } catch {
            onEnd("reading \(path): \(String(cString: strerror(error.code)))")
        }
    }
}
