import DownloadFSCore
import Foundation
import Glibc

/// Waits on tasks through the mount's files (R4, R22) — `downloadfs wait`
/// and `add --wait`: a read of each `queue/<id>/wait` in turn, a line per
/// task on stdout as it is known, and the exit status from them all
/// (`TaskEnding`).
///
/// A task gone by its turn (its `wait` says removed, or is not there) may
/// have completed and been forgotten meanwhile: `MOUNT/events`, followed
/// from when the waiter is made (`GoneTaskWatch`), says which. So make the
/// waiter before looking at any task, and before adding the tasks that
/// `add --wait` waits on.
struct TaskWaiter {
    let root: String
    let command: String
    private let gone: GoneTaskWatch

    init(root: String, command: String) {
        self.root = root
        self.command = command
        gone = GoneTaskWatch(mount: root, command: command)
    }

    /// Every task of `MOUNT/status` not completed or failed (paused ones too).
    func unfinished() throws(ClientError) -> [Int64] {
        guard let table = try? String(contentsOfFile: root + "/status", encoding: .utf8) else {
            throw ClientError("\(command): cannot read \(root)/status; is downloadfs mounted there?")
        }
        return StatusReading.unfinishedIDs(inTable: table)
    }

    /// Waits for each of `ids`, in the order given, printing its line once
    /// it has ended; returns 0 when all completed, 3 when any failed. An id
    /// that is not there when asked for is an error before any wait; one
    /// removed while waited on has failed (`failed: task removed`, R22),
    /// and one forgotten before its turn had completed (R34).
    func wait(for ids: [Int64]) throws(ClientError) -> Int32 {
        gone.watch(only: ids)
        for id in ids where access(taskDirectory(id), F_OK) != 0 {
            let code = errno
            if code == ENOENT { throw ClientError("\(command): no task \(id) in \(root) (downloadfs status lists them)") }
            throw ClientError("\(command): cannot see task \(id) in \(root): \(String(cString: strerror(code)))")
        }
        var endings: [TaskEnding] = []
        for id in ids {
            let before = name(of: id)
            var ending = try waitFor(id)
            var goneName: String?
            if ending == .failed(GoneTaskEndings.removed) { (ending, goneName) = gone.ending(ofGone: id) }
            let line = ending.line(id: id, name: ending == .completed ? goneName ?? name(of: id) ?? before : nil)
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            endings.append(ending)
        }
        return TaskEnding.exitStatus(endings)
    }

    private func taskDirectory(_ id: Int64) -> String { "\(root)/queue/\(id)" }

    /// What a read of `wait` gets when the mount goes before the task has
    /// ended: ENOTCONN from the daemon as it unmounts (R22: the task has
    /// not failed), or from a mount whose daemon is gone, and ECONNABORTED
    /// when the connection was aborted under the request.
    static let mountWentAway: Set<Int32> = [ENOTCONN, ECONNABORTED]

    /// The task has not ended and has not failed: it resumes at the next
    /// mount (R3), so the sentence says so, and the exit status is 1 (an
    /// error of the wait), never 3 (a task failed).
    private func unmounted(before id: Int64) -> ClientError {
        ClientError("\(command): \(root) was unmounted before task \(id) ended; it resumes at the next mount "
            + "(then wait again)")
    }

    /// The task's name now, from its `status`; nil when it is gone.
    private func name(of id: Int64) -> String? {
        (try? String(contentsOfFile: taskDirectory(id) + "/status", encoding: .utf8))
            .flatMap { StatusReading.value("name", inStatus: $0) }
    }

    /// Blocks on `queue/<id>/wait` until the task ends.
    private func waitFor(_ id: Int64) throws(ClientError) -> TaskEnding {
        let path = taskDirectory(id) + "/wait"
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            // Gone between the check and the open (removed, or forgotten).
            if code == ENOENT { return .failed(GoneTaskEndings.removed) }
            if TaskWaiter.mountWentAway.contains(code) { throw unmounted(before: id) }
            throw ClientError("\(command): cannot open \(path): \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var text = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                if TaskWaiter.mountWentAway.contains(errno) { throw unmounted(before: id) }
                throw ClientError("\(command): cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            text += buffer[..<n]
        }
        let answer = String(decoding: text, as: UTF8.self)
        guard let ending = TaskEnding(waitText: answer) else {
            throw ClientError("\(command): \(path) said \"\(answer.trimmingCharacters(in: .whitespacesAndNewlines))\", not completed or failed")
        }
        return ending
    }
}
