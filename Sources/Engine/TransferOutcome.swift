import DownloadFSCore

/// How one attempt ended. `bytes` are on disk (fdatasync'ed) when reported.
public enum TransferOutcome: Sendable, Equatable {
    /// The whole body arrived (or a 416 said we already had it all).
    case completed(bytes: Int64, total: Int64?)
    /// The attempt failed; `receivedData` says whether any body byte arrived (R53).
    case failed(TransferFailure, bytes: Int64, receivedData: Bool)
    /// Stopped on request (pause, cancel, unmount).
    case stopped(bytes: Int64)
}
