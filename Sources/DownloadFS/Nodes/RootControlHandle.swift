import DownloadFSCore
import FuseKit
import Synchronization

/// An open `MOUNT/ctl`: each write is one global command (R31); reads give
/// the settings as they were at open.
final class RootControlHandle: FileWriter, FileReader {
    private let context: NodeContext
    private let settings: SnapshotHandle
    /// What this open file was written so far: whether a blank write ends an earlier one.
    private let writes = Mutex(ControlWrites())

    init(context: NodeContext, settings: [UInt8]) {
        self.context = context
        self.settings = SnapshotHandle(settings)
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        settings.read(size: size, offset: offset, reply: reply)
    }

    func write(_ data: UnsafeRawBufferPointer, offset: Int64, caller: RequestCaller) throws(Errno) -> Int {
        let text = String(decoding: data, as: UTF8.self)
        do throws(ControlCommandError) {
            switch writes.withLock({ $0.command(in: text, parse: ControlCommand.parseGlobal) }) {
            case .success(let command?): try context.loop.client.controlGlobal(command)
            case .success(nil): return data.count  // blank lines ending an earlier write: nothing to do
            case .failure(let error): throw error
            }
        } catch {
            let writer = RefusalLogLine.tag(pid: caller.pid)
            context.log.daemon("ctl: refused\(writer): \(error.message)", level: .warning)
            throw .invalid
        }
        // Answered once the kernel has been told what the command changed
        // (`forget`: the task's directory is gone from its cache too).
        context.notifier?.flush(waitingUpTo: 1)
        return data.count
    }
}
