import DownloadFSCore
import FuseKit
import Synchronization

/// An open text file whose content changes (a task's `status`, `url` and
/// `log`, `MOUNT/log`): each read is fresh (R7), as `FollowedText` says: a
/// read from the start renders the text again, a read at its end goes on
/// with what a log added (`tail -f`), reads in between see one text.
final class LiveTextHandle: FileReader {
    private let text: Mutex<FollowedText>
    /// The text now, or nil when there is none (its task is gone).
    private let render: @Sendable () -> [UInt8]?

    /// `grows`: a log, which a read at its end follows.
    init(grows: Bool, render: @escaping @Sendable () -> [UInt8]?) throws(Errno) {
        guard let first = render() else { throw .noEntry }
        text = Mutex(FollowedText(first, grows: grows))
        self.render = render
    }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        let render = render
        let bytes = text.withLock { Array($0.read(offset: Int(offset), size: size, current: render)) }
        reply.bytes(bytes)
    }
}
