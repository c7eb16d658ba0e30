import FuseKit

/// Content rendered at open (the settings a `ctl` shows): one reader sees
/// one consistent text, whatever its read sizes.
final class SnapshotHandle: FileReader {
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(size: Int, offset: Int64, reply: ReadReply) {
        guard offset < bytes.count else { reply.bytes([]); return }
        let end = min(bytes.count, Int(offset) + size)
        _ = bytes[Int(offset)..<end].withUnsafeBytes { reply.bytes($0) }
    }
}
