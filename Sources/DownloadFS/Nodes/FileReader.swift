import FuseKit

/// A handle that serves reads. It answers through `reply`, now or later
/// (a `wait` read is answered when its task ends, R22).
protocol FileReader: OpenFile {
    func read(size: Int, offset: Int64, reply: ReadReply)
}
