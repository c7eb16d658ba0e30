import DownloadFSCore
import Engine
import Foundation
import FuseKit
import Synchronization

/// An open `MOUNT/status` (R21): rows rendered as the reader gets to them,
/// from the task set as it was at open — the first line at once, and only
/// the part being read in memory, however many tasks there are.
final class RootStatusHandle: FileReader {
    private struct Cursor {
        var table: StatusTable
        /// The bytes rendered and not yet read past, and the file offset of the first.
        var window: [UInt8] = []
        var windowStart: Int64 = 0
        /// The id to render from next; nil once every row is rendered.
        var next: Int64?
        var done = false
    }

    private let tasks: TaskSnapshot
    private let lives: [Int64: LiveProgress]
    private let monotonicNow = MonotonicClock.now()
    private let cursor: Mutex<Cursor>
    /// Rows rendered per step.
    private static let step = 512

    init(_ tasks: TaskSnapshot, _ lives: [Int64: LiveProgress]) {
        self.tasks = tasks
        self.lives = lives
        let table = StatusTable(highestID: tasks.tasks.last?.key ?? 0)
        var cursor = Cursor(table: table)
        cursor.window = Array(table.header.utf8)
        cursor.next = tasks.tasks.isEmpty ? nil : 0
        self.cursor = Mutex(cursor)
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        let bytes = cursor.withLock { c -> [UInt8] in
            if offset < c.windowStart { c = Cursor(table: StatusTable(highestID: tasks.tasks.last?.key ?? 0)); rewind(&c) }
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

    private func rewind(_ c: inout Cursor) {
        c.window = Array(c.table.header.utf8)
        c.windowStart = 0
        c.next = tasks.tasks.isEmpty ? nil : 0
        c.done = false
    }

    private func renderMore(_ c: inout Cursor) {
        guard let next = c.next else {
            c.window += Array(c.table.totalsLine.utf8)
            c.done = true
            return
        }
        let (entries, following) = tasks.tasks.entries(from: next, limit: Self.step)
        var text = ""
        for (id, task) in entries {
            text += c.table.row(TaskStatusView(TaskEntry(record: task, live: lives[id]), now: monotonicNow))
        }
        c.window += Array(text.utf8)
        c.next = following
    }
}
