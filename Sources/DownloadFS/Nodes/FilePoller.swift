import FuseKit

/// A handle that can say when a read will not block (poll(2), select(2),
/// epoll). Handles without it are always ready, as the kernel takes any
/// file of a filesystem that does not poll.
protocol FilePoller: OpenFile {
    /// How ready the handle is now; `waiter`, when given, is notified once
    /// that changes (see `FileSystemOperations.poll`).
    func poll(_ waiter: PollWaiter?) -> FileReadiness
}
