import Synchronization

/// Messages for a thread that takes them all at once per wake-up (the
/// task loop, the engine), from any thread.
///
/// `put` says whether the consumer needs waking: only the message that
/// finds the inbox empty does. The consumer takes every message a wake-up
/// finds, so a wake-up per message would make one empty turn for each
/// message that came with another; any message after the first is taken
/// with it, because the consumer takes all only after being woken.
public final class Inbox<Message: Sendable>: Sendable {
    private let queue = Mutex<[Message]>([])

    public init() {}

    /// Appends `message`; true when the consumer must be woken for it.
    public func put(_ message: Message) -> Bool {
        queue.withLock { queue -> Bool in
            queue.append(message)
            return queue.count == 1
        }
    }

    /// Every message put since the last take, in order.
    public func takeAll() -> [Message] {
        queue.withLock { queue -> [Message] in
            defer { queue.removeAll(keepingCapacity: true) }
            return queue
        }
    }
}
