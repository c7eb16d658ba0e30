import FuseKit

/// An open `MOUNT/events` (R24): one reader of the mount's `EventFeed`.
/// A stream, like a pipe: offsets mean nothing and seeking fails, reads
/// block until a line is there (EINTR when interrupted, EAGAIN when the
/// file is `O_NONBLOCK`), and poll, select and epoll say when one is.
final class EventsHandle: FileReader, FileReleaser, FilePoller {
    private let feed: EventFeed
    private let reader: UInt64

    init(feed: EventFeed) {
        self.feed = feed
        reader = feed.open()
    }

    var isStream: Bool { true }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        feed.read(reader, size: size, reply: reply)
    }

    func poll(_ waiter: PollWaiter?) -> FileReadiness {
        feed.poll(reader, waiter: waiter)
    }

    func release() {
        feed.close(reader)
    }
}
