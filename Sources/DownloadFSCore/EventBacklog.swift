import Foundation

/// The newest lines of `MOUNT/events` (R24) and what a reader gets from
/// them: a ring of the last `limit` lines, read through each reader's own
/// `EventCursor`.
///
/// Lines are numbered in the order they are published; `end` is the number
/// the next one gets. A reader opened now starts at `end` ("from the moment
/// it opened the file"). One whose cursor is more than `limit` lines behind
/// `end` — or behind the oldest line kept — has lost lines: its next read
/// gives `TIME - lost N` (N the lines it missed) and its cursor jumps to
/// `end`, so what it reads next is the next line published.
///
/// Invariants: the ring holds lines `end - lines.count ..< end`, at most
/// `limit` of them; line `n` is at `lines[(n - base) % limit]`, where `base`
/// is the number the ring's first slot was filled with (the ring is emptied
/// whole, never in part, so this holds until it is). With `limit` slots,
/// every reader at most `limit` behind finds all its lines.
///
/// Reads return whole lines, as many as fit in `size`. Two exceptions:
/// - A request of more than a page (`pageSize`) is never filled to its last
///   byte. The kernel splits a large read of a `direct_io` file into
///   requests of up to 1 MiB and sends the next one only when the last came
///   back full; that next one would find no line and wait, and a `read(2)`
///   that had lines would block until the next change.
/// - A line longer than the request is cut: the read gets its first bytes
///   and the next read the rest (`EventCursor.rest`). Lines are about 100
///   bytes and tools read 4 KiB or more, but bash's `read` builtin reads a
///   stream one byte at a time, and a byte stream must give it every byte.
public struct EventBacklog: Sendable {
    /// How far behind a reader may fall before it loses lines (R24).
    public static let defaultLimit = 10_000
    /// Requests up to this size may be filled to their last byte.
    public static let pageSize = 4096

    public let limit: Int
    /// The number the next line published gets.
    public private(set) var end: UInt64 = 0
    private var lines: [String] = []
    private var base: UInt64 = 0

    public init(limit: Int = EventBacklog.defaultLimit) {
        precondition(limit > 0, "an events backlog keeps at least one line")
        self.limit = limit
    }

    /// How many lines are kept now.
    public var count: Int { lines.count }

    /// The cursor of a reader that opens the file now.
    public func cursorAtEnd() -> EventCursor { EventCursor(next: end) }

    /// Keeps `newLines` (each without its newline) as the newest lines,
    /// dropping the oldest beyond `limit`.
    public mutating func append(_ newLines: [String]) {
        for line in newLines {
            if lines.count < limit {
                lines.append(line)
            } else {
                lines[slot(end)] = line
            }
            end += 1
        }
    }

    /// Counts `count` lines that no reader will read (none is open): keeps
    /// none of them, and frees those kept.
    public mutating func skip(_ count: Int) {
        end += UInt64(count)
        forget()
    }

    /// Frees every line kept (no reader is left); numbering goes on.
    public mutating func forget() {
        if !lines.isEmpty { lines = [] }
        base = end
    }

    /// True when a read with `cursor` would return something at once.
    public func hasLines(for cursor: EventCursor) -> Bool {
        !cursor.rest.isEmpty || cursor.next < end
    }

    /// What a read of `size` bytes gets with `cursor`, which moves past it;
    /// empty when nothing waits (the reader then waits for `append`).
    /// `now` is the time a `lost` line shows.
    public func read(_ cursor: inout EventCursor, size: Int, now: Date) -> [UInt8] {
        let room = size > EventBacklog.pageSize ? size - 1 : size
        var out: [UInt8] = []
        guard room > 0 else { return out }
        if !cursor.rest.isEmpty {
            let taken = min(room, cursor.rest.count)
            out.append(contentsOf: cursor.rest[..<taken])
            cursor.rest.removeFirst(taken)
            if !cursor.rest.isEmpty { return out }
        }
        while out.count < room, let (line, next) = line(after: cursor, now: now) {
            let length = line.utf8.count + 1
            if out.count + length <= room {
                out.append(contentsOf: line.utf8)
                out.append(UInt8(ascii: "\n"))
            } else if out.isEmpty {
                var bytes = Array(line.utf8)
                bytes.append(UInt8(ascii: "\n"))
                out.append(contentsOf: bytes[..<room])
                cursor.rest = Array(bytes[room...])
            } else {
                break
            }
            cursor.next = next
        }
        return out
    }

    /// The line a reader at `cursor` gets next and where its cursor then
    /// is; nil when it has read everything.
    private func line(after cursor: EventCursor, now: Date) -> (String, UInt64)? {
        guard cursor.next < end else { return nil }
        let oldest = end - UInt64(lines.count)
        if end - cursor.next > UInt64(limit) || cursor.next < oldest {
            return (EventLine.lost(time: now, count: Int(end - cursor.next)), end)
        }
        return (lines[slot(cursor.next)], cursor.next + 1)
    }

    private func slot(_ number: UInt64) -> Int { Int((number - base) % UInt64(limit)) }
}
