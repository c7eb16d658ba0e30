/// What of a task's committed ranges its partial file (STATE/partial/<id>)
/// no longer holds (R51), and the task-log line that says so. One rule for
/// both places that look: the mount, for every stored task
/// (`TaskMachine.reconcile`), and the engine, for the file of each attempt
/// it opens (`DataFile.open`) — a file deleted or cut under a running
/// daemon would otherwise be trusted for bytes it no longer has, and its
/// zeros published as the download.
public struct PartialDataCorrection: Sendable, Equatable {
    /// The ranges the file still backs.
    public let ranges: ByteRanges
    public let line: String

    /// The correction `ranges` need against a partial file of `partialSize`
    /// bytes (nil: there is none); nil when the file backs them all. A file
    /// is only checked for its size: the checkpoint protocol flushes before
    /// it commits, so a shorter file is the one way one can lose them.
    public static func of(_ ranges: ByteRanges, partialSize: Int64?) -> PartialDataCorrection? {
        guard let end = ranges.ranges.last?.upperBound else { return nil }
        guard let size = partialSize else {
            return PartialDataCorrection(ranges: ByteRanges(), line: "partial data is missing; starting over")
        }
        guard size < end else { return nil }
        let kept = ranges.clamped(to: 0..<size)
        return PartialDataCorrection(
            ranges: kept, line: "partial data is shorter than its checkpoint; continuing from \(kept.count) bytes")
    }
}
