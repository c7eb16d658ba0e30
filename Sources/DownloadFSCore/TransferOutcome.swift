/// How one attempt ended. `ranges` (everything the task holds) are on disk
/// (fdatasync'ed) when reported.
public enum TransferOutcome: Sendable, Equatable {
    /// The whole body arrived (or a 416 said we already had it all).
    case completed(bytes: Int64, total: Int64?)
    /// The attempt failed; `receivedData` says whether any body byte arrived (R53).
    case failed(TransferFailure, ranges: ByteRanges, receivedData: Bool)
    /// The server's answer means the partial data is useless and this body
    /// cannot replace it (a range that starts elsewhere, a 416 below the
    /// total): start again from zero with a plain request (R52).
    case restart(reason: String)
    /// Stopped on request (pause, cancel, unmount).
    case stopped(ranges: ByteRanges)
}
