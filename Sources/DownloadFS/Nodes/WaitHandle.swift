import FuseKit

/// An open `queue/<id>/wait` (R22): a read is answered at once when the
/// task has ended (or is gone), else parked in the loop's `WaitRegistry`
/// until it ends; an interrupted reader gets EINTR at once.
final class WaitHandle: FileReader {
    private let context: NodeContext
    private let id: Int64

    init(context: NodeContext, id: Int64) {
        self.context = context
        self.id = id
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        guard offset == 0 else { reply.bytes([]); return }
        if let text = ending() {
            reply.bytes(Array(text.utf8))
            return
        }
        let waits = context.loop.waits
        waits.park(id, reply)
        // The task may have ended between the check and the park.
        if let text = ending() { waits.wake(id, text) }
    }

    /// What the reader is told, once the task has ended or is gone.
    private func ending() -> String? {
        guard let entry = context.table.entry(id) else { return "failed: task removed\n" }
        switch entry.record.state {
        case .completed: return "completed\n"
        case .failed: return "failed: \(entry.record.error ?? "unknown error")\n"
        default: return nil
        }
    }
}
