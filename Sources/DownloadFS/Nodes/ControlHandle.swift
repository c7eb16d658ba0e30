import DownloadFSCore
import FuseKit
import Synchronization

/// An open `ctl`, a task's (R30) or the mount's (R31): each write is one
/// command, answered once the loop has committed it; a refused one is
/// EINVAL and a log line naming the writer. Reads give the settings as
/// they were at open.
final class ControlHandle: FileWriter, FileReader {
    private let context: NodeContext
    private let target: ControlTarget
    private let settings: SnapshotHandle
    /// What this open file was written so far: whether a blank write ends an earlier one.
    private let writes = Mutex(ControlWrites())

    init(context: NodeContext, target: ControlTarget, settings: [UInt8]) {
        self.context = context
        self.target = target
        self.settings = SnapshotHandle(settings)
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        settings.read(size: size, offset: offset, reply: reply)
    }

    func write(_ data: UnsafeRawBufferPointer, offset: Int64, caller: RequestCaller) throws(Errno) -> Int {
        let text = String(decoding: data, as: UTF8.self)
        let target = target
        do throws(ControlCommandError) {
            switch writes.withLock({ $0.command(in: text, parse: target.parse) }) {
            case .success(let command?):
                switch target {
                case .task(let id): try context.loop.client.control(id, command)
                case .all: try context.loop.client.controlGlobal(command)
                }
            case .success(nil): return data.count  // blank lines ending an earlier write: nothing to do
            case .failure(let error): throw error
            }
        } catch {
            let writer = RefusalLogLine.tag(pid: caller.pid)
            context.log.daemon("\(target.file): refused\(writer): \(error.message)", level: .warning)
            throw .invalid
        }
        // Answered once the kernel has been told what the command changed
        // (`forget`: the task's directory is gone from its cache too).
        context.notifier?.flush(waitingUpTo: 1)
        return data.count
    }
}
