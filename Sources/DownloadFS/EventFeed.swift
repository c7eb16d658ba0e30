import DownloadFSCore
import Foundation
import FuseKit
import Synchronization

/// What `MOUNT/events` streams to every reader of one mount (R24): the
/// lines the task loop publishes after each commit, each reader from the
/// moment it opened the file, every reader every line, in order.
///
/// The lines live in one `EventBacklog` (the newest 10,000, kept only
/// while someone reads); each open file is a reader with its own cursor.
/// A read with nothing to give keeps its FUSE request, not a thread (as
/// `WaitRegistry` does), until the next `publish`, and answers EINTR at
/// once when the reader is interrupted, EAGAIN at once when its file is
/// `O_NONBLOCK`. A poller's `PollWaiter` is kept per reader and notified
/// at the next `publish`.
///
/// Locking: one mutex, a leaf, held only to move the ring and the cursors.
/// Replies and poll notifications are sent after it is released, on the
/// thread that made them due (the loop for `publish`, a FUSE worker for a
/// read or an interrupt). A poll notification may be sent from the loop
/// thread, unlike a cache notice (`KernelNotifier`): the kernel only wakes
/// the file's wait queue under a spinlock for it, taking no inode or
/// directory lock, so it cannot wait for a request the loop is serving.
final class EventFeed: Sendable {
    private struct ParkedRead { let token: UInt64; let reply: ReadReply; let size: Int }

    private struct Reader {
        var cursor: EventCursor
        /// Reads waiting for a line, oldest first (several threads may read
        /// one open file at once: it is a stream, with no position lock).
        var parked: [ParkedRead] = []
        /// The newest poller's handle, notified at the next publish.
        var waiter: PollWaiter?
    }

    private struct State {
        var backlog: EventBacklog
        var readers: [UInt64: Reader] = [:]
        /// Numbers for readers and parked reads; never reused.
        var next: UInt64 = 1
        /// Set at unmount: reads get what is left, then end of file.
        var ended = false
    }

    private let state: Mutex<State>

    /// `limit`: how far behind a reader may fall (R24 says 10,000).
    init(limit: Int = EventBacklog.defaultLimit) {
        state = Mutex(State(backlog: EventBacklog(limit: limit)))
    }

    // MARK: - the loop's side

    /// True while some file is open on `events`: the loop may skip making
    /// lines when false (no one can read a line published now).
    var isFollowed: Bool { state.withLock { !$0.readers.isEmpty } }

    /// Publishes committed changes, one line each, without newlines (made
    /// by `EventLine.line`), in the order they were committed. Called on
    /// the loop thread after each commit (R15: nothing is shown before it
    /// is committed). Answers the reads waiting and wakes the pollers.
    func publish(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        let (answers, waiters) = state.withLock { s -> ([(ReadReply, [UInt8])], [PollWaiter]) in
            guard !s.ended else { return ([], []) }
            guard !s.readers.isEmpty else {
                s.backlog.skip(lines.count)
                return ([], [])
            }
            s.backlog.append(lines)
            var answers: [(ReadReply, [UInt8])] = []
            var waiters: [PollWaiter] = []
            let now = Date()
            var index = s.readers.values.startIndex
            while index != s.readers.values.endIndex {
                EventFeed.serve(&s.readers.values[index], from: s.backlog, now: now, into: &answers)
                if let waiter = s.readers.values[index].waiter {
                    waiters.append(waiter)
                    s.readers.values[index].waiter = nil
                }
                s.readers.values.formIndex(after: &index)
            }
            return (answers, waiters)
        }
        for (reply, bytes) in answers { reply.bytes(bytes) }
        for waiter in waiters { waiter.notify() }
    }

    /// At unmount, once the loop has published its last line and before
    /// the FUSE session is destroyed (a poll notification needs it): reads
    /// waiting get end of file, pollers are woken, and later publishes
    /// are ignored.
    func end() {
        let (parked, waiters) = state.withLock { s -> ([ParkedRead], [PollWaiter]) in
            s.ended = true
            var parked: [ParkedRead] = []
            var waiters: [PollWaiter] = []
            var index = s.readers.values.startIndex
            while index != s.readers.values.endIndex {
                parked += s.readers.values[index].parked
                s.readers.values[index].parked = []
                if let waiter = s.readers.values[index].waiter { waiters.append(waiter) }
                s.readers.values[index].waiter = nil
                s.readers.values.formIndex(after: &index)
            }
            return (parked, waiters)
        }
        for read in parked { read.reply.bytes([]) }
        for waiter in waiters { waiter.notify() }
    }

    // MARK: - readers (FUSE threads)

    /// A new reader, at the end of the stream: it gets what is published
    /// from now on.
    func open() -> UInt64 {
        state.withLock { s in
            let reader = s.next
            s.next += 1
            s.readers[reader] = Reader(cursor: s.backlog.cursorAtEnd())
            return reader
        }
    }

    /// Answers `reply` with whole lines that fit in `size`, now if any
    /// wait, else at the next publish; EINTR at once if the reader is
    /// interrupted meanwhile.
    func read(_ reader: UInt64, size: Int, reply: ReadReply) {
        enum Outcome { case answer([UInt8]), refuse(Errno), parked(UInt64) }
        let outcome = state.withLock { s -> Outcome in
            guard s.readers[reader] != nil else { return .refuse(.badHandle) }
            if size == 0 { return .answer([]) }
            if s.backlog.hasLines(for: s.readers[reader]!.cursor) {
                return .answer(s.backlog.read(&s.readers[reader]!.cursor, size: size, now: Date()))
            }
            if s.ended { return .answer([]) }
            if reply.nonBlocking { return .refuse(.wouldBlock) }
            let token = s.next
            s.next += 1
            s.readers[reader]!.parked.append(ParkedRead(token: token, reply: reply, size: size))
            return .parked(token)
        }
        switch outcome {
        case .answer(let bytes): reply.bytes(bytes)
        case .refuse(let errno): reply.error(errno)
        case .parked(let token):
            // A publish may answer it first; then this registers nothing.
            reply.onInterrupt { [self] in
                if let parked = unpark(reader, token) { parked.error(.interrupted) }
            }
        }
    }

    /// How ready `reader` is for a read; keeps `waiter` (the newest) to
    /// notify at the next publish. Kept even when a line waits: an
    /// edge-triggered epoll is told of the next line only through it.
    func poll(_ reader: UInt64, waiter: PollWaiter?) -> FileReadiness {
        let (ready, replaced) = state.withLock { s -> (Bool, PollWaiter?) in
            guard s.readers[reader] != nil, !s.ended else { return (true, nil) }
            var replaced: PollWaiter?
            if let waiter {
                replaced = s.readers[reader]!.waiter
                s.readers[reader]!.waiter = waiter
            }
            return (s.backlog.hasLines(for: s.readers[reader]!.cursor), replaced)
        }
        withExtendedLifetime(replaced) {}  // freed here, off the lock
        return ready ? .readable : []
    }

    /// The reader's file is closed: its lines are no longer kept for it,
    /// and none are kept once no reader is left.
    func close(_ reader: UInt64) {
        let gone = state.withLock { s -> Reader? in
            let gone = s.readers.removeValue(forKey: reader)
            if s.readers.isEmpty { s.backlog.forget() }
            return gone
        }
        // The kernel releases a file only once its reads have returned, so
        // none waits; should one, it gets end of file rather than nothing.
        for read in gone?.parked ?? [] { read.reply.bytes([]) }
    }

    // MARK: -

    /// Answers `reader`'s parked reads, oldest first, while lines wait.
    private static func serve(_ reader: inout Reader, from backlog: EventBacklog, now: Date,
                              into answers: inout [(ReadReply, [UInt8])]) {
        while let read = reader.parked.first, backlog.hasLines(for: reader.cursor) {
            reader.parked.removeFirst()
            answers.append((read.reply, backlog.read(&reader.cursor, size: read.size, now: now)))
        }
    }

    /// Takes back a parked read that no publish has answered yet.
    private func unpark(_ reader: UInt64, _ token: UInt64) -> ReadReply? {
        state.withLock { s -> ReadReply? in
            guard let index = s.readers[reader]?.parked.firstIndex(where: { $0.token == token }) else { return nil }
            return s.readers[reader]!.parked.remove(at: index).reply
        }
    }
}
