import DownloadFSCore
import Engine
import Foundation
import FuseKit
import Synchronization

/// An open `MOUNT/status` (R21): rows rendered as the reader gets to them,
/// from the task set as it was when the reader began — the first line at
/// once, and only the part being read in memory, however many tasks there
/// are. A read from the start again begins on the task set as it is then
/// (R7: a monitor that keeps the file open sees new progress).
final class RootStatusHandle: FileReader {
    private struct Cursor {
        /// The task set this pass renders, as it was when the pass began.
        var tasks: TaskSnapshot
        var lives: [Int64: LiveProgress]
        var monotonicNow: Double
        var table: StatusTable
        /// The bytes rendered and not yet read past, and the file offset of the first.
        var window: [UInt8] = []
        var windowStart: Int64 = 0
        /// The id to render from next; nil once every row is rendered.
        var next: Int64?
        var done = false
        /// Whether a read has been served from this pass.
        var served = false

        init(_ tasks: TaskSnapshot, _ lives: [Int64: LiveProgress]) {
            self.tasks = tasks
            self.lives = lives
            monotonicNow = MonotonicClock.now()
            table = StatusTable(highestID: tasks.tasks.last?.key ?? 0)
            window = Array(table.header.utf8)
            next = tasks.tasks.isEmpty ? nil : 0
        }
    }

    private let cursor: Mutex<Cursor>
    /// The task set now, for a pass that begins again.
    private let snapshot: @Sendable () -> (TaskSnapshot, [Int64: LiveProgress])
    /// Rows rendered per step.
    private static let step = 512

    init(_ snapshot: @escaping @Sendable () -> (TaskSnapshot, [Int64: LiveProgress])) {
        self.snapshot = snapshot
        let (tasks, lives) = snapshot()
        cursor = Mutex(Cursor(tasks, lives))
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        let bytes = cursor.withLock { c -> [UInt8] in
            if offset < c.windowStart || offset == 0 && c.served {
                let (tasks, lives) = snapshot()
                c = Cursor(tasks, lives)
            }
            c.served = true
            let end = offset + Int64(size)
            while c.windowStart + Int64(c.window.count) < end && !c.done { renderMore(&c) }
            // What was read is let go: memory stays flat in the number of tasks.
            let from = Int(min(offset - c.windowStart, Int64(c.window.count)))
            let to = Int(min(end - c.windowStart, Int64(c.window.count)))
            let out = Array(c.window[from..<to])
            c.window.removeFirst(from)
            c.windowStart += Int64(from)
            return out
        }
        reply.bytes(bytes)
    }

    /// The whole table's size (a small table's `stat`).
    func renderedSize() -> Int64 {
        cursor.withLock { c -> Int64 in
            var total = Int64(c.window.count)
            while !c.done {
                let before = c.window.count
                renderMore(&c)
                total += Int64(c.window.count - before)
            }
            return total
        }
    }

    private func renderMore(_ c: inout Cursor) {
        guard let next = c.next else {
            c.window += Array(c.table.totalsLine.utf8)
            c.done = true
            return
        }
        let (entries, following) = c.tasks.tasks.entries(from: next, limit: Self.step)
        var text = ""
        for (id, task) in entries {
            text += c.table.row(TaskStatusView(TaskEntry(record: task, live: c.lives[id]), now: c.monotonicNow))
        }
        c.window += Array(text.utf8)
        c.next = following
    }
}
