/// What one open of a file whose text changes (a status, a log) shows, read
/// after read (R7: every read is fresh).
///
/// - A read from offset 0 (but the open's first) takes the text as it is now: a monitor that keeps
///   the file open and reads it again from the start (as with /proc files)
///   sees new progress.
/// - A read at or past the end of a log's text (`grows`) takes the text
///   again. When it has only grown at its end, the reader goes on with what
///   was added: `tail -f` follows it. When its oldest lines were dropped
///   meanwhile (a log keeps its newest lines), the reader goes on after the
///   last line it had. A text rewritten in place (a status) has nothing to
///   go on with there: that read is the end of the file, and renders
///   nothing (a `cat` of a status renders it once).
/// - Reads in between are served from the text held, so a reader that reads
///   in small pieces gets one consistent text.
///
/// What was read long ago is let go (`kept`), so a reader that follows a
/// busy log for days holds a bounded window, not everything it ever read.
public struct FollowedText: Sendable {
    /// The text held, starting at file offset `start`.
    public private(set) var bytes: [UInt8]
    public private(set) var start = 0
    /// Whether the text grows at its end (a log), so a read at its end may
    /// find more; a status is rewritten in place instead.
    let grows: Bool
    /// Bytes kept behind the newest: past twice this, the older half goes.
    let kept: Int
    /// Whether a read was served: the first read from 0 uses the text the
    /// open rendered (a `cat` renders once).
    private var served = false

    public init(_ bytes: [UInt8], grows: Bool, kept: Int = 1 << 20) {
        self.bytes = bytes
        self.grows = grows
        self.kept = kept
    }

    /// The bytes of a read of `size` at `offset`; `current` renders the text
    /// as it is now (nil when there is none any more: the reader keeps what it has).
    public mutating func read(offset: Int, size: Int, current: () -> [UInt8]?) -> ArraySlice<UInt8> {
        defer { served = true }
        if offset == 0, served, let now = current() {
            bytes = now
            start = 0
        } else if grows, offset >= start + bytes.count, let now = current() {
            follow(now)
        }
        guard offset >= start else {
            // Before the window kept (a reader that went back a long way):
            // the text as it is now, at that offset.
            guard let now = current(), offset < now.count else { return [] }
            return now[offset..<min(now.count, offset + size)]
        }
        let from = offset - start
        guard from < bytes.count else { return [] }
        return bytes[from..<min(bytes.count, from + size)]
    }

    /// Appends what `now` has after the text held.
    private mutating func follow(_ now: [UInt8]) {
        let added: ArraySlice<UInt8>
        if start == 0, now.count >= bytes.count, now.starts(with: bytes) {
            added = now[bytes.count...]
        } else if let end = Self.end(ofLastLineOf: bytes, in: now) {
            added = now[end...]
        } else {
            return
        }
        guard !added.isEmpty else { return }
        bytes += added
        if bytes.count > 2 * kept {
            let dropped = bytes.count - kept
            bytes.removeFirst(dropped)
            start += dropped
        }
    }

    /// Where in `now` the last whole line of `held` ends, found from the
    /// end (the newest copy of it): nil when `held` has no whole line or
    /// `now` no longer has it.
    public static func end(ofLastLineOf held: [UInt8], in now: [UInt8]) -> Int? {
        let newline = UInt8(ascii: "\n")
        guard held.last == newline else { return nil }
        let lineStart = held.dropLast().lastIndex(of: newline).map { $0 + 1 } ?? held.startIndex
        let line = held[lineStart...]
        guard line.count > 1, now.count >= line.count else { return nil }
        var candidate = now.count - line.count
        while candidate >= 0 {
            // A line starts at 0 or after a newline.
            if candidate == 0 || now[candidate - 1] == newline, now[candidate..<candidate + line.count].elementsEqual(line) {
                return candidate + line.count
            }
            candidate -= 1
        }
        return nil
    }
}
